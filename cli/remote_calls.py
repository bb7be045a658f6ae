"""The calls session commands make, answered by a server: the roll and session views the
API sends are the shapes the local commands print (domain/session/views.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from diceledger.cli.remote import RemoteError, Server, amounts
from diceledger.domain.export_proof import ExportProof
from diceledger.domain.hashchain import format_timestamp, parse_timestamp
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.merkle import ConsistencyProof
from diceledger.domain.receipt import Receipt
from diceledger.domain.session import commands as cmd
from diceledger.domain.signed_note import VerifierKey

if TYPE_CHECKING:
    from diceledger.domain.projections.directory import Entry
    from diceledger.infra.app.results import ExportFileResult, ReplayResult, StatisticsResult


@dataclass(frozen=True, slots=True)
class RemoteRoll:
    """A roll a server answered with: its view and the checkpoint its command produced."""

    session_id: str
    view: JsonObject
    checkpoint: str | None


def _checkpoint(answer: JsonObject) -> str | None:
    value = answer.pop("checkpoint", None)
    return value if isinstance(value, str) else None


def _faces(faces: tuple[int, ...] | None) -> JsonValue:
    return None if faces is None else list(faces)


def roll_body(command: cmd.RequestRoll | cmd.RequestOpposed) -> JsonObject:
    """Return the API body of a roll command (docs/api.md, POST .../rolls)."""
    if isinstance(command, cmd.RequestOpposed):
        side, other = command.side, command.opponent
        return {
            "kind": "opposed",
            "expression": side.expression,
            "adv": amounts(side.advantage),
            "dis": amounts(side.disadvantage),
            "eased": amounts(side.eased),
            "hindered": amounts(side.hindered),
            "median": command.median,
            "no_explode": not command.exploding,
            "action": command.action_id,
            "reroll": command.rerolls,
            "reroll_scope": command.reroll_scope.value,
            "mode": command.mode.value,
            "for": command.on_behalf_of,
            "label": command.label,
            "salt": command.salt,
            "faces": _faces(command.faces),
            "vs": {
                "name": other.name,
                "expression": other.expression,
                "adv": amounts(other.advantage),
                "dis": amounts(other.disadvantage),
                "eased": amounts(other.eased),
                "hindered": amounts(other.hindered),
                "reroll": command.opponent_rerolls,
                "rolls_own_dice": command.opponent_rolls,
            },
        }
    target = command.target
    body: JsonObject = {
        "kind": command.kind.value,
        "expression": command.expression,
        "against": command.against,
        "adv": amounts(command.advantage),
        "dis": amounts(command.disadvantage),
        "eased": amounts(command.eased),
        "hindered": amounts(command.hindered),
        "median": command.median,
        "no_explode": not command.exploding,
        "action": command.action_id,
        "reroll": command.rerolls,
        "reroll_scope": command.reroll_scope.value,
        "auto_reroll": command.auto_reroll,
        "mode": command.mode.value,
        "for": command.on_behalf_of,
        "label": command.label,
        "salt": command.salt,
        "faces": _faces(command.faces),
        "replaces": command.replaces,
    }
    if target is not None and target.dc_modifier is not None:
        body |= {"dc": target.dc_modifier, "dc_label": target.dc_label}
    elif target is not None:
        body["target"] = target.value
    return body


class RemoteCalls:
    """What session commands ask of an application, asked of a server instead."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def _roll(self, session_id: str, rest: str, body: JsonObject | None) -> RemoteRoll:
        path = self.server.session_path(session_id, rest)
        answer = self.server.post(path, body, session_id).json()
        checkpoint = _checkpoint(answer)
        return RemoteRoll(session_id, answer, checkpoint)

    def request_roll(
        self, session_id: str, command: cmd.RequestRoll | cmd.RequestOpposed
    ) -> RemoteRoll:
        """Roll."""
        return self._roll(session_id, "/rolls", roll_body(command))

    def reroll(self, session_id: str, command: cmd.Reroll) -> RemoteRoll:
        """Spend rerolls on chosen dice."""
        body: JsonObject = {"dice": list(command.dice), "faces": _faces(command.faces)}
        return self._roll(session_id, f"/rolls/{command.roll_id}/reroll", body)

    def roll_side(self, session_id: str, command: cmd.RollSide) -> RemoteRoll:
        """Roll one's own side of an opposed check."""
        body: JsonObject = {"faces": _faces(command.faces)}
        return self._roll(session_id, f"/rolls/{command.roll_id}/side", body)

    def accept(self, session_id: str, roll_id: int, faces: tuple[int, ...] | None) -> RemoteRoll:
        """Accept a waiting roll."""
        return self._roll(session_id, f"/rolls/{roll_id}/accept", {"faces": _faces(faces)})

    def reveal_roll(self, session_id: str, roll_id: int) -> RemoteRoll:
        """Reveal a blind roll (GM)."""
        return self._roll(session_id, f"/rolls/{roll_id}/reveal", None)

    def session(self, session_id: str) -> JsonObject:
        """Return the session as its member may see it."""
        return self.server.get(self.server.session_path(session_id), session_id).json()

    def sessions(self) -> list[Entry]:
        """Return the sessions this user holds a token for on the server, as it shows them."""
        from diceledger.domain.projections.directory import Entry

        listed = []
        for member in self.server.tokens.sessions(self.server.origin):
            view = self.session(member.session_id)
            members, rolls = view.get("members"), view.get("rolls")
            listed.append(
                Entry(
                    session_id=member.session_id,
                    title=str(view.get("title")),
                    gm=str(view.get("gm")),
                    members=len(members) if isinstance(members, list) else 0,
                    rolls=len(rolls) if isinstance(rolls, list) else 0,
                    ended=view.get("ended") is True,
                )
            )
        return listed

    def dispute(self, session_id: str, roll_id: int, reason: str) -> JsonObject:
        """Dispute a roll."""
        path = self.server.session_path(session_id, f"/rolls/{roll_id}/dispute")
        return self.server.post(path, {"reason": reason}, session_id).json()

    def verify(self, session_id: str) -> JsonObject:
        """Return the server's verification of the session."""
        return self.server.get(self.server.session_path(session_id, "/verify"), session_id).json()

    def checkpoint(self, session_id: str) -> JsonObject:
        """Return the session's latest signed checkpoint."""
        path = self.server.session_path(session_id, "/checkpoint")
        return self.server.get(path, session_id).json()

    def export_file(self, session_id: str, output: Path) -> ExportFileResult:
        """Write the session's events as JSON Lines to ``output``, its proof beside it.

        The proof is the checkpoint the server signed for exactly the events received and
        the server's keys, so `verify --file` and `import` read it as a local export's.
        """
        from diceledger.infra.app.exports import save_export

        ended = self.session(session_id).get("ended") is True
        path = self.server.session_path(session_id, "/export")
        text = self.server.get(path, session_id).body.decode("utf-8")
        lines = text.splitlines(keepends=True)
        note = self.signed_at(session_id, len(lines))
        keys = tuple(str(key) for key in self.keys())
        proof = None if note is None else ExportProof((note,), keys)
        return save_export(session_id, lines, output, ended, proof)

    def signed_at(self, session_id: str, size: int) -> str | None:
        """Return the checkpoint the server signed for the session's first ``size`` events."""
        path = self.server.session_path(session_id, "/proof/consistency")
        query = {"from": str(size), "to": str(size)}
        note = self.server.get(path, session_id, query).json().get("checkpoint")
        return note if isinstance(note, str) else None

    def replay(
        self, session_id: str, until_position: int | None, at: datetime | None
    ) -> ReplayResult:
        """Return the session's timeline as the server gives it, decoded into its lines."""
        from diceledger.domain.projections.timeline import Line
        from diceledger.infra.app.results import ReplayResult

        query = {} if until_position is None else {"until_position": str(until_position)}
        if at is not None:
            query["at"] = format_timestamp(at)
        path = self.server.session_path(session_id, "/replay")
        answer = self.server.get(path, session_id, query).json()
        rows = answer.get("lines")
        lines = []
        for row in rows if isinstance(rows, list) else []:
            detail = row.get("detail") if isinstance(row, dict) else None
            if not isinstance(row, dict) or not isinstance(detail, dict):
                raise RemoteError("the server's replay holds a line that is not one")
            roll_id = row.get("roll_id")
            lines.append(
                Line(
                    position=int(str(row["position"])),
                    version=int(str(row["version"])),
                    recorded_at=parse_timestamp(str(row["recorded_at"])),
                    actor=str(row["actor"]),
                    event=str(row["event"]),
                    roll_id=None if roll_id is None else int(str(roll_id)),
                    hidden=row.get("hidden") is True,
                    text=str(row["text"]),
                    detail=detail,
                )
            )
        as_of = answer.get("as_of")
        return ReplayResult(session_id, tuple(lines), as_of if isinstance(as_of, dict) else None)

    def statistics(self, session_id: str, player: str | None) -> StatisticsResult:
        """Return the session's per-player statistics, decoded into the domain's reports."""
        from diceledger.domain.projections.tidy import report_from_json
        from diceledger.infra.app.results import StatisticsResult

        query = {} if player is None else {"player": player}
        path = self.server.session_path(session_id, "/stats")
        answer = self.server.get(path, session_id, query).json()
        rows = answer.get("reports")
        listed = rows if isinstance(rows, list) else []
        reports = tuple(report_from_json(r) for r in listed if isinstance(r, dict))
        return StatisticsResult(str(answer.get("viewer")), reports)

    def receipt(self, session_id: str, roll_id: int) -> Receipt:
        """Return a roll's receipt, as the server made it."""
        path = self.server.session_path(session_id, f"/rolls/{roll_id}/receipt")
        return Receipt.parse(self.server.get(path, session_id).body.decode("utf-8"))

    def keys(self) -> tuple[VerifierKey, ...]:
        """Return the server's verifier keys, current and retired."""
        listed = self.server.get("/api/v1/keys").json().get("keys")
        if not isinstance(listed, list):
            raise RemoteError("the server's keys answer has no list of keys")
        return tuple(
            VerifierKey.parse(str(key["verifier_key"])) for key in listed if isinstance(key, dict)
        )

    def consistency(self, session_id: str, old: int, new: int) -> ConsistencyProof:
        """Return the server's proof that its tree of ``old`` events is a prefix of ``new``."""
        path = self.server.session_path(session_id, "/proof/consistency")
        answer = self.server.get(path, session_id, {"from": str(old), "to": str(new)}).json()
        hashes = answer.get("proof")
        if not isinstance(hashes, list):
            raise RemoteError("the server's consistency answer has no proof")
        return ConsistencyProof(old, new, tuple(bytes.fromhex(str(h)) for h in hashes))
