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

from diceledger.domain.dice.request import RerollScope
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount
from diceledger.domain.session.modes import RollMode
from diceledger.infra.app.roll_form import (
    MAX_ACTION_ID,
    MAX_AGAINST,
    MAX_AMOUNT,
    MAX_EXPRESSION,
    MAX_FACES,
    MAX_LABEL,
    MAX_REROLLS,
    MAX_SALT,
    MAX_SOURCES,
    MAX_TEXT,
    FormKind,
    OtherSide,
    RollForm,
)

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
    label: str | None = Field(default=None, max_length=MAX_LABEL, json_schema_extra=PLAIN)

    def domain(self) -> Amount:
        """Return the domain's labelled amount."""
        return Amount(self.amount, self.label)


def amounts(sources: list[Source]) -> tuple[Amount, ...]:
    """Return the sources as domain amounts."""
    return tuple(source.domain() for source in sources)


class NewSession(Body):
    """POST /api/v1/sessions."""

    title: str = Field(min_length=1, max_length=MAX_TEXT, json_schema_extra=WORDS)
    name: str = Field(
        default="GM",
        min_length=1,
        max_length=MAX_TEXT,
        description="The GM's name",
        json_schema_extra=WORDS,
    )
    forbid_manual: bool = False


class NewCampaign(Body):
    """POST /api/v1/campaigns."""

    title: str = Field(min_length=1, max_length=MAX_TEXT)
    session_id: str = Field(
        min_length=1,
        max_length=200,
        description="The campaign's first session: the caller's token must be a GM's of it",
    )


class NewCampaignSession(Body):
    """POST /api/v1/campaigns/{id}/sessions."""

    title: str = Field(min_length=1, max_length=MAX_TEXT)
    forbid_manual: bool = False


class NewInvite(Body):
    """POST /api/v1/sessions/{id}/invites."""

    expires_in_minutes: int = Field(default=24 * 60, ge=1, le=7 * 24 * 60)


class JoinRequest(Body):
    """POST /api/v1/sessions/{id}/join."""

    invite_code: str = Field(min_length=1, max_length=100)
    name: str = Field(min_length=1, max_length=MAX_TEXT, json_schema_extra=WORDS)
    client_seed: str = Field(default="", max_length=MAX_TEXT, json_schema_extra=PLAIN)


class OpposingSide(Body):
    """The other side of an opposed check.

    Its adv, dis, eased and hindered are a GM's to give when the side is another member:
    a player's request that gives them is refused (R6).
    """

    name: str = Field(min_length=1, max_length=MAX_TEXT, json_schema_extra=WORDS)
    expression: str = Field(min_length=1, max_length=MAX_EXPRESSION)
    adv: list[Source] = Field(default_factory=list, max_length=MAX_SOURCES)
    dis: list[Source] = Field(default_factory=list, max_length=MAX_SOURCES)
    eased: list[Source] = Field(default_factory=list, max_length=MAX_SOURCES)
    hindered: list[Source] = Field(default_factory=list, max_length=MAX_SOURCES)
    reroll: int = Field(
        default=0, ge=0, le=MAX_REROLLS, description="This side's own reroll allowance (R11)"
    )
    rolls_own_dice: bool = Field(
        default=False,
        description="This side's member rolls their own dice, typed in from physical dice or "
        "by the server, in every round (POST .../rolls/{roll_id}/side); the check waits for "
        "them. Only for a member who may see the roll.",
    )

    def side(self) -> OtherSide:
        """Return the roll form's other side."""
        return OtherSide(
            self.name,
            self.expression,
            amounts(self.adv),
            amounts(self.dis),
            amounts(self.eased),
            amounts(self.hindered),
            self.reroll,
            self.rolls_own_dice,
        )


class RollBody(Body):
    """POST /api/v1/sessions/{id}/rolls: the roll form (infra/app/roll_form.py) as JSON."""

    kind: FormKind
    expression: str = Field(
        default="", max_length=MAX_EXPRESSION, description="Empty only with 'saved'"
    )
    saved: str | None = Field(
        default=None,
        max_length=MAX_LABEL,
        description="A saved roll of the roller's character, whose kind and expression it takes",
    )
    target: int | None = Field(default=None, ge=-MAX_AMOUNT, le=MAX_AMOUNT)
    dc: int | None = Field(default=None, ge=-MAX_AMOUNT, le=MAX_AMOUNT, description="DC MOD")
    dc_label: str | None = Field(default=None, max_length=MAX_LABEL, json_schema_extra=PLAIN)
    dc_from: str | None = Field(
        default=None,
        max_length=MAX_LABEL,
        description="A save's DC from the sheet of the character 'against' names: the "
        "attribute or Quality whose MOD it takes (R4), e.g. WIS",
        json_schema_extra=PLAIN,
    )
    against: str | None = Field(default=None, max_length=MAX_AGAINST, json_schema_extra=PLAIN)
    adv: list[Source] = Field(default_factory=list, max_length=MAX_SOURCES)
    dis: list[Source] = Field(default_factory=list, max_length=MAX_SOURCES)
    median: bool = False
    eased: list[Source] = Field(default_factory=list, max_length=MAX_SOURCES)
    hindered: list[Source] = Field(default_factory=list, max_length=MAX_SOURCES)
    reroll: int = Field(default=0, ge=0, le=MAX_REROLLS)
    reroll_scope: Literal["effect", "damage"] = "effect"
    auto_reroll: bool = False
    action: str | None = Field(default=None, max_length=MAX_ACTION_ID, json_schema_extra=PLAIN)
    mode: Literal["public", "gm", "blind", "self"] | None = Field(
        default=None,
        description="Who sees the roll until it is revealed: public (everyone, the default), "
        "gm (the roller and the GMs), blind (the GMs only), self (the roller only, until "
        "the roller reveals it or the session ends)",
    )
    blind: bool = Field(default=False, description="The same as mode blind (older clients)")
    for_: str | None = Field(
        default=None, alias="for", max_length=MAX_TEXT, json_schema_extra=PLAIN
    )
    label: str | None = Field(default=None, max_length=MAX_LABEL, json_schema_extra=PLAIN)
    salt: str = Field(default="", max_length=MAX_SALT, json_schema_extra=PLAIN)
    faces: list[int] | None = Field(default=None, max_length=MAX_FACES)
    replaces: int | None = Field(default=None, ge=1)
    no_explode: bool = False
    vs: OpposingSide | None = None

    def form(self) -> RollForm:
        """Return the roll form this body fills in."""
        return RollForm(
            kind=self.kind,
            expression=self.expression,
            saved=self.saved,
            target=self.target,
            dc=self.dc,
            dc_label=self.dc_label,
            dc_from=self.dc_from,
            against=self.against,
            adv=amounts(self.adv),
            dis=amounts(self.dis),
            median=self.median,
            eased=amounts(self.eased),
            hindered=amounts(self.hindered),
            reroll=self.reroll,
            reroll_scope=RerollScope(self.reroll_scope),
            auto_reroll=self.auto_reroll,
            action=self.action,
            mode=None if self.mode is None else RollMode(self.mode),
            blind=self.blind,
            for_=self.for_,
            label=self.label,
            salt=self.salt,
            faces=None if self.faces is None else tuple(self.faces),
            replaces=self.replaces,
            no_explode=self.no_explode,
            vs=None if self.vs is None else self.vs.side(),
        )

    def command(self, actor: str) -> cmd.RequestRoll | cmd.RequestOpposed:
        """Return the typed command this body asks for."""
        return self.form().command(actor)


class RerollBody(Body):
    """POST .../rolls/{roll}/reroll."""

    dice: list[int] = Field(min_length=1, max_length=MAX_FACES)
    faces: list[int] | None = Field(default=None, max_length=MAX_FACES)


class SideBody(Body):
    """POST .../rolls/{roll}/side: optional; the member's own dice typed in, in draw order."""

    faces: list[int] | None = Field(default=None, max_length=MAX_FACES)
    turn_round: int | None = Field(
        default=None,
        ge=1,
        description="The round the caller saw waiting for their dice: refused once the "
        "check has moved on",
    )


class AcceptBody(Body):
    """POST .../rolls/{roll}/accept: optional; typed-in faces for an opposed check's next round."""

    faces: list[int] | None = Field(default=None, max_length=MAX_FACES)


class DisputeBody(Body):
    """POST .../rolls/{roll}/dispute."""

    reason: str = Field(min_length=1, max_length=MAX_TEXT, json_schema_extra=WORDS)


class RulingBody(Body):
    """POST .../rolls/{roll}/ruling."""

    outcome: Literal["upheld", "voided"]
    note: str | None = Field(default=None, max_length=MAX_TEXT, json_schema_extra=PLAIN)


class MemberBody(Body):
    """POST .../members/{name}/revoke and .../co-gm: no fields (the name is in the path)."""
