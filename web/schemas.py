"""The JSON bodies the API accepts, and how each becomes a typed command.

Field names follow the CLI's options (docs/api.md). Bodies with unknown fields are refused,
so a misspelt option never passes silently, and bodies are strict: a number is a JSON
number and a flag a JSON boolean (``"15"``, ``true`` or ``15.0`` for an integer are
refused, not coerced). Integers in a path or a query string are written in digits.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from fastapi import Path
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.config import JsonDict
from pydantic_core import PydanticCustomError

from diceledger.domain.dice.request import MAX_AMOUNT, RerollScope, RollKind, Target
from diceledger.domain.errors import InvalidInputError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode

TEXT = 500  # titles, names, reasons, notes
LABEL = 80
SALT = 200
EXPRESSION = 1000

# Characters the domain refuses in any text (domain/session/text.py): controls, line and
# paragraph separators, bidirectional controls; names and expressions refuse more, which
# no pattern lists whole. Declared to /openapi.json only: the domain's own check words
# the refusal (which character, where) better than a pattern mismatch would.
_HIDDEN = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069"
PLAIN: JsonDict = {"pattern": f"^[^{_HIDDEN}]*$"}
# The same, and not blank: text a field requires.
WORDS: JsonDict = {"pattern": f"^[^{_HIDDEN}]*[^{_HIDDEN}\\s][^{_HIDDEN}]*$"}


INTEGER_TEXT = re.compile(r"-?[0-9]{1,18}")


def _integer_text(value: object) -> object:
    if isinstance(value, str) and not INTEGER_TEXT.fullmatch(value):
        raise PydanticCustomError("int_text", "must be an integer in digits, such as 3")
    return value


# Last in a path or query integer's Annotated (after its Path or Query, whose bounds then
# still reach the OpenAPI document): lax parsing would take 1.0, +1, 1e0 or 1_000.
AS_WRITTEN = BeforeValidator(_integer_text)
RollId = Annotated[int, Path(description="The roll's number in its session"), AS_WRITTEN]

ISO_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}.*")


def _time_text(value: object) -> object:
    if isinstance(value, str) and not ISO_TIME.fullmatch(value):
        raise PydanticCustomError("time_text", "must be a time in ISO 8601, as 2026-01-01T20:00Z")
    return value


# Last in a time's Annotated: lax parsing would read 0.5 or 1700000000 as seconds since 1970.
AS_ISO_TIME = BeforeValidator(_time_text)


class Body(BaseModel):
    """A request body: unknown fields are an error, and no value is coerced."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)


class Source(Body):
    """One labelled source of Advantage, Disadvantage, Eased or Hindered."""

    amount: int = Field(ge=0, le=MAX_AMOUNT)
    label: str | None = Field(default=None, max_length=LABEL, json_schema_extra=PLAIN)

    def domain(self) -> Amount:
        """Return the domain's labelled amount."""
        return Amount(self.amount, self.label)


def amounts(sources: list[Source]) -> tuple[Amount, ...]:
    """Return the sources as domain amounts."""
    return tuple(source.domain() for source in sources)


class NewSession(Body):
    """POST /api/v1/sessions."""

    title: str = Field(min_length=1, max_length=TEXT, json_schema_extra=WORDS)
    name: str = Field(
        default="GM",
        min_length=1,
        max_length=TEXT,
        description="The GM's name",
        json_schema_extra=WORDS,
    )
    forbid_manual: bool = False


class NewCampaign(Body):
    """POST /api/v1/campaigns."""

    title: str = Field(min_length=1, max_length=TEXT)
    session_id: str = Field(
        min_length=1,
        max_length=200,
        description="The campaign's first session: the caller's token must be a GM's of it",
    )


class NewCampaignSession(Body):
    """POST /api/v1/campaigns/{id}/sessions."""

    title: str = Field(min_length=1, max_length=TEXT)
    forbid_manual: bool = False


class NewInvite(Body):
    """POST /api/v1/sessions/{id}/invites."""

    expires_in_minutes: int = Field(default=24 * 60, ge=1, le=7 * 24 * 60)


class JoinRequest(Body):
    """POST /api/v1/sessions/{id}/join."""

    invite_code: str = Field(min_length=1, max_length=100)
    name: str = Field(min_length=1, max_length=TEXT, json_schema_extra=WORDS)
    client_seed: str = Field(default="", max_length=TEXT, json_schema_extra=PLAIN)


class OpposingSide(Body):
    """The other side of an opposed check."""

    name: str = Field(min_length=1, max_length=TEXT, json_schema_extra=WORDS)
    expression: str = Field(min_length=1, max_length=EXPRESSION)
    adv: list[Source] = Field(default_factory=list, max_length=20)
    dis: list[Source] = Field(default_factory=list, max_length=20)
    eased: list[Source] = Field(default_factory=list, max_length=20)
    hindered: list[Source] = Field(default_factory=list, max_length=20)
    reroll: int = Field(
        default=0, ge=0, le=1000, description="This side's own reroll allowance (R11)"
    )


class RollBody(Body):
    """POST /api/v1/sessions/{id}/rolls: the fields of the CLI's roll commands."""

    kind: Literal["roll", "effect", "damage", "check", "save", "opposed"]
    expression: str = Field(
        default="", max_length=EXPRESSION, description="Empty only with 'saved'"
    )
    saved: str | None = Field(
        default=None,
        max_length=LABEL,
        description="A saved roll of the roller's character, whose kind and expression it takes",
    )
    target: int | None = Field(default=None, ge=-MAX_AMOUNT, le=MAX_AMOUNT)
    dc: int | None = Field(default=None, ge=-MAX_AMOUNT, le=MAX_AMOUNT, description="DC MOD")
    dc_label: str | None = Field(default=None, max_length=LABEL, json_schema_extra=PLAIN)
    dc_from: str | None = Field(
        default=None,
        max_length=LABEL,
        description="A save's DC from the sheet of the character 'against' names: the "
        "attribute or Quality whose MOD it takes (R4), e.g. WIS",
        json_schema_extra=PLAIN,
    )
    against: str | None = Field(default=None, max_length=TEXT, json_schema_extra=PLAIN)
    adv: list[Source] = Field(default_factory=list, max_length=20)
    dis: list[Source] = Field(default_factory=list, max_length=20)
    median: bool = False
    eased: list[Source] = Field(default_factory=list, max_length=20)
    hindered: list[Source] = Field(default_factory=list, max_length=20)
    reroll: int = Field(default=0, ge=0, le=1000)
    reroll_scope: Literal["effect", "damage"] = "effect"
    auto_reroll: bool = False
    action: str | None = Field(default=None, max_length=LABEL, json_schema_extra=PLAIN)
    mode: Literal["public", "gm", "blind", "self"] | None = Field(
        default=None,
        description="Who sees the roll until it is revealed: public (everyone, the default), "
        "gm (the roller and the GMs), blind (the GMs only), self (the roller only, until "
        "the roller reveals it or the session ends)",
    )
    blind: bool = Field(default=False, description="The same as mode blind (older clients)")
    for_: str | None = Field(default=None, alias="for", max_length=TEXT, json_schema_extra=PLAIN)
    label: str | None = Field(default=None, max_length=LABEL, json_schema_extra=PLAIN)
    salt: str = Field(default="", max_length=SALT, json_schema_extra=PLAIN)
    faces: list[int] | None = Field(default=None, max_length=1000)
    replaces: int | None = Field(default=None, ge=1)
    no_explode: bool = False
    vs: OpposingSide | None = None

    def _mode(self) -> RollMode:
        # ``blind: true`` is how clients asked before modes; it means mode blind.
        if self.blind and self.mode not in (None, RollMode.BLIND.value):
            raise InvalidInputError(f"blind: true is mode blind; give one, not mode {self.mode}")
        return RollMode.BLIND if self.blind else RollMode(self.mode or RollMode.PUBLIC.value)

    def command(self, actor: str) -> cmd.RequestRoll | cmd.RequestOpposed:
        """Return the typed command this body asks for."""
        if self.kind == "opposed":
            return self._opposed(actor)
        if self.vs is not None:
            raise InvalidInputError("'vs' is the other side of an opposed check only")
        kind = RollKind.EFFECT if self.kind == "roll" else RollKind(self.kind)
        return cmd.RequestRoll(
            kind=kind,
            expression=self.expression,
            advantage=amounts(self.adv),
            disadvantage=amounts(self.dis),
            eased=amounts(self.eased),
            hindered=amounts(self.hindered),
            median=self.median,
            exploding=not self.no_explode,
            target=self._target(),
            against=self.against,
            action_id=self.action,
            rerolls=self.reroll,
            reroll_scope=RerollScope(self.reroll_scope),
            auto_reroll=self.auto_reroll,
            mode=self._mode(),
            on_behalf_of=self.for_,
            label=self.label,
            salt=self.salt,
            faces=None if self.faces is None else tuple(self.faces),
            replaces=self.replaces,
            dc_reference=self.dc_from,
            saved=self.saved,
        )

    def _target(self) -> Target | None:
        if self.target is not None and self.dc is not None:
            raise InvalidInputError("give a target or a dc, not both")
        if self.dc is not None:
            return Target.dc(self.dc, self.dc_label)  # the domain derives the target (R4)
        if self.dc_label is not None:
            raise InvalidInputError("dc_label goes with dc")
        return None if self.target is None else Target(self.target)

    def _opposed(self, actor: str) -> cmd.RequestOpposed:
        if self.vs is None:
            raise InvalidInputError("an opposed check needs 'vs': the other side")
        unused = {
            "target": self.target,
            "dc": self.dc,
            "dc_from": self.dc_from,
            "saved": self.saved,
            "against": self.against,
            "replaces": self.replaces,
        }
        given = sorted(name for name, value in unused.items() if value is not None)
        if given or self.auto_reroll:
            names = ", ".join(given + (["auto_reroll"] if self.auto_reroll else []))
            raise InvalidInputError(f"an opposed check takes no {names}")
        side = CheckSide(
            self.for_ or actor,
            self.expression,
            amounts(self.adv),
            amounts(self.dis),
            amounts(self.eased),
            amounts(self.hindered),
        )
        other = self.vs
        opponent = CheckSide(
            other.name,
            other.expression,
            amounts(other.adv),
            amounts(other.dis),
            amounts(other.eased),
            amounts(other.hindered),
        )
        return cmd.RequestOpposed(
            side,
            opponent,
            median=self.median,
            exploding=not self.no_explode,
            action_id=self.action,
            rerolls=self.reroll,
            reroll_scope=RerollScope(self.reroll_scope),
            opponent_rerolls=other.reroll,
            mode=self._mode(),
            on_behalf_of=self.for_,
            label=self.label,
            salt=self.salt,
            faces=None if self.faces is None else tuple(self.faces),
        )


class RerollBody(Body):
    """POST .../rolls/{roll}/reroll."""

    dice: list[int] = Field(min_length=1, max_length=1000)
    faces: list[int] | None = Field(default=None, max_length=1000)


class AcceptBody(Body):
    """POST .../rolls/{roll}/accept: optional; typed-in faces for an opposed check's next round."""

    faces: list[int] | None = Field(default=None, max_length=1000)


class DisputeBody(Body):
    """POST .../rolls/{roll}/dispute."""

    reason: str = Field(min_length=1, max_length=TEXT, json_schema_extra=WORDS)


class RulingBody(Body):
    """POST .../rolls/{roll}/ruling."""

    outcome: Literal["upheld", "voided"]
    note: str | None = Field(default=None, max_length=TEXT, json_schema_extra=PLAIN)


class MemberBody(Body):
    """POST .../members/{name}/revoke and .../co-gm: no fields (the name is in the path)."""
