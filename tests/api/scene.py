"""A session set up for the authorization matrix: one member of each kind, and a secret.

GM mira, co-GM cora, player ann, and rex, whose token the GM revoked; olga is the GM of
another session. Mira has made a blind roll that stays hidden, with a label and an NPC
name no player may ever read, and typed-in faces that make its die explode.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import sqlalchemy as sa

from diceledger.infra.vault.seeds import SeedVault
from tests.api.conftest import Api

CHECK = {"kind": "check", "expression": "1d20+5", "target": 15}
SECRET_LABEL = "ambush-label-never-shown"
SECRET_NPC = "npc-name-never-shown"
OTHER_TITLE = "Another table entirely"
# Caches that a permitted read may bring up to date; everything else must not move on a
# refusal.
PROJECTION_TABLES = frozenset(
    {
        "alembic_version",
        "projection_checkpoints",
        "stat_counters",
        "stat_members",
        "session_directory",
        "session_directory_members",
    }
)


class Caller(StrEnum):
    """Who calls a route in the matrix."""

    NO_TOKEN = "no token"
    UNKNOWN = "unknown token"
    REVOKED = "revoked token"
    OTHER_SESSION = "other session's token"
    PLAYER = "player"
    CO_GM = "co-GM"
    GM = "GM"

    @property
    def is_member(self) -> bool:
        """Tell whether the caller is a member of the scene's session."""
        return self in (Caller.PLAYER, Caller.CO_GM, Caller.GM)

    @property
    def sees_blind_rolls(self) -> bool:
        """Tell whether the caller may see a hidden blind roll."""
        return self in (Caller.CO_GM, Caller.GM)


NAMES = {Caller.PLAYER: "ann", Caller.CO_GM: "cora", Caller.GM: "mira"}


@dataclass
class Scene:
    """The session, its callers' tokens, and helpers that make what a route needs."""

    api: Api
    sid: str
    tokens: dict[Caller, str | None]
    blind_roll: int
    visible_roll: int
    other_sid: str
    minted: list[str] = field(default_factory=list)
    _numbers: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def gm(self) -> str:
        """Return the GM's token."""
        token = self.tokens[Caller.GM]
        assert token is not None
        return token

    def number(self) -> int:
        """Return a number not used before in this scene."""
        return next(self._numbers)

    def invite(self) -> str:
        """Return a fresh invite code of the session."""
        answer = self.api.post(f"/api/v1/sessions/{self.sid}/invites", self.gm)
        assert answer.status_code == 201, answer.text
        code: str = answer.json()["invite_code"]
        return code

    def new_player(self) -> str:
        """Let a new player join; return their name."""
        name = f"extra-{self.number()}"
        body = {"invite_code": self.invite(), "name": name}
        joined = self.api.post(f"/api/v1/sessions/{self.sid}/join", body=body)
        assert joined.status_code == 201, joined.text
        self.minted.append(joined.json()["player_token"])
        return name

    def device(self, caller: Caller) -> str:
        """Return the id of a device ``caller`` is signed in on, besides their first.

        The member makes a sign-in code and spends it, as a second browser would.
        """
        made = self.api.post(f"/api/v1/sessions/{self.sid}/sign-in-codes", self.tokens[caller])
        assert made.status_code == 201, made.text
        token = self.api.services.access.sign_in(made.json()["sign_in_path"][len("/sign-in/") :])
        self.minted.append(token.token)
        devices = self.api.get(f"/api/v1/sessions/{self.sid}/devices", token.token).json()
        device_id: str = next(d["device_id"] for d in devices["devices"] if d["this_device"])
        return device_id

    def first_device(self, caller: Caller) -> str:
        """Return the id of the device ``caller`` first signed in on (their scene token)."""
        devices = self.api.get(f"/api/v1/sessions/{self.sid}/devices", self.tokens[caller]).json()
        device_id: str = devices["devices"][0]["device_id"]
        return device_id

    def sign_out_others(self, caller: Caller) -> None:
        """Sign out every device of ``caller`` but the one of their scene token."""
        devices = f"/api/v1/sessions/{self.sid}/devices"
        token = self.tokens[caller]
        for device in self.api.get(devices, token).json()["devices"]:
            if not device["this_device"]:
                path = f"{devices}/{device['device_id']}/sign-out"
                assert self.api.post(path, token).status_code == 200

    def free_of_characters(self, caller: Caller) -> None:
        """Have the GM retire ``caller``'s character, if any, so that they may have another."""
        characters = f"/api/v1/sessions/{self.sid}/characters"
        for known in self.api.get(characters, self.gm).json()["characters"]:
            if known["owner"] == NAMES[caller] and not known["retired"]:
                retired = self.api.post(f"{characters}/{known['name']}/retire", self.gm)
                assert retired.status_code == 200, retired.text

    def character(self, caller: Caller) -> str:
        """Return a fresh character of ``caller``'s, made by the GM; return its name."""
        self.free_of_characters(caller)
        name = f"Hero {self.number()}"
        body = {"name": name, "owner": NAMES[caller]}
        created = self.api.post(f"/api/v1/sessions/{self.sid}/characters", self.gm, body)
        assert created.status_code == 201, created.text
        return name

    def roll(self, caller: Caller, body: dict[str, Any]) -> int:
        """Roll as ``caller``; return the roll's id."""
        token = self.tokens[caller]
        assert token is not None
        answer = self.api.roll(self.sid, token, body)
        assert answer.status_code == 201, answer.text
        roll_id: int = answer.json()["roll_id"]
        return roll_id

    def awaiting_roll(self, caller: Caller) -> int:
        """Return a roll of ``caller`` that waits for a reroll or an accept."""
        return self.roll(caller, {"kind": "damage", "expression": "2d6", "reroll": 1})

    def awaiting_own_dice(self, caller: Caller) -> int:
        """Return an opposed check that waits for ``caller`` to roll their own side (R6)."""
        asker = Caller.PLAYER if caller is Caller.GM else Caller.GM
        other = {"name": NAMES[caller], "expression": "1d20", "rolls_own_dice": True}
        return self.roll(asker, {"kind": "opposed", "expression": "1d20", "vs": other})

    def disputed_roll(self) -> int:
        """Return a roll of the player with an open dispute."""
        roll_id = self.roll(Caller.PLAYER, CHECK)
        path = f"/api/v1/sessions/{self.sid}/rolls/{roll_id}/dispute"
        answer = self.api.post(path, self.tokens[Caller.PLAYER], {"reason": "it fell off"})
        assert answer.status_code == 201, answer.text
        return roll_id

    def campaign(self) -> str:
        """Return the id of the campaign the session belongs to, started by its GM once."""
        found = self.api.services.app.campaigns.campaign_of(self.sid)
        if found is not None:
            return found
        body = {"title": f"Campaign {self.number()}", "session_id": self.sid}
        answer = self.api.post("/api/v1/campaigns", self.gm, body)
        assert answer.status_code == 201, answer.text
        started: str = answer.json()["campaign_id"]
        return started

    def blind(self, label: str = "revealed later") -> int:
        """Return a fresh blind roll of the GM."""
        body = {**CHECK, "blind": True, "for": "orc", "label": label}
        return self.roll(Caller.GM, body)

    def unrevealed_seeds(self) -> list[str]:
        """Return, in hex, every seed of the session not revealed yet (from the vault)."""
        state = self.api.services.app.session("mira", self.sid)
        vault = SeedVault(self.api.db)
        seeds = [vault.get(self.sid, e.commitment) for e in state.epochs if e.seed is None]
        return [seed.hex() for seed in seeds if seed is not None]

    def secrets_for(self, caller: Caller) -> list[str]:
        """Return what no answer to ``caller`` may contain."""
        tokens = [t for t in self.tokens.values() if t is not None] + self.minted
        secret = [*tokens, *self.unrevealed_seeds(), self.other_sid, OTHER_TITLE]
        if not caller.sees_blind_rolls:
            secret += [SECRET_LABEL, SECRET_NPC]
        return secret


def build_scene(api: Api) -> Scene:
    """Open the session with its members, the revoked one, another session and a blind roll."""
    opened = api.post("/api/v1/sessions", body={"title": "Matrix table", "name": "mira"}).json()
    sid, gm = opened["session_id"], opened["gm_token"]
    tokens: dict[Caller, str | None] = {Caller.GM: gm}
    for caller, name in ((Caller.PLAYER, "ann"), (Caller.CO_GM, "cora"), (Caller.REVOKED, "rex")):
        code = api.post(f"/api/v1/sessions/{sid}/invites", gm).json()["invite_code"]
        joined = api.post(f"/api/v1/sessions/{sid}/join", body={"invite_code": code, "name": name})
        tokens[caller] = joined.json()["player_token"]
    assert api.post(f"/api/v1/sessions/{sid}/members/cora/co-gm", gm).status_code == 200
    assert api.post(f"/api/v1/sessions/{sid}/members/rex/revoke", gm).status_code == 200
    other = api.post("/api/v1/sessions", body={"title": OTHER_TITLE, "name": "olga"}).json()
    tokens[Caller.OTHER_SESSION] = other["gm_token"]
    tokens[Caller.UNKNOWN] = "dlt_" + "x" * 43
    tokens[Caller.NO_TOKEN] = None
    scene = Scene(api, sid, tokens, 0, 0, other["session_id"])
    # A d20 showing 20 explodes into a second d20 (R12): a player must not learn even that.
    secret = {**CHECK, "blind": True, "for": SECRET_NPC, "label": SECRET_LABEL, "faces": [20, 7]}
    scene.blind_roll = scene.roll(Caller.GM, secret)
    scene.visible_roll = scene.roll(Caller.PLAYER, CHECK)
    return scene


def snapshot(api: Api) -> dict[str, list[str]]:
    """Return every row of every table a refusal must leave alone."""
    with api.db.connect() as connection:
        names = sorted(set(sa.inspect(connection).get_table_names()) - PROJECTION_TABLES)
        return {
            name: sorted(map(repr, connection.execute(sa.text(f'SELECT * FROM "{name}"'))))
            for name in names
        }
