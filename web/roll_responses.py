"""What a roll and a session look like in an answer: the schemas of the domain's views.

The shapes are those of domain/session/views.py (the CLI's --json); these models only
describe them to /openapi.json, and tests/api/test_openapi_answers.py holds every real
answer to them. The enumerations are the domain's own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from diceledger.domain.dice.request import RollKind
from diceledger.domain.dice.rollstate import Reason
from diceledger.domain.dice.sources import Provenance
from diceledger.infra.app.roll_form import MAX_EXPRESSION, MAX_LABEL, MAX_TEXT

Status = Literal["awaiting_rerolls", "resolved"]
Mode = Literal["public", "gm", "blind", "self"]
MODE = (
    "Who sees the roll until it is revealed: public, gm (the roller and the GMs), blind "
    "(the GMs only), self (the roller only)"
)
CHECKPOINT = "The signed checkpoint the command produced (docs/verification.md)"


class Shape(BaseModel):
    """An answer's shape: every field the server sends is declared; a field with a default
    is one only some answers carry (an opposed check's, a retired key's)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)


class SourceAnswer(Shape):
    """One labelled source of Advantage, Disadvantage, Eased or Hindered."""

    amount: int = Field(ge=0)
    label: str | None = Field(max_length=MAX_LABEL)


class PartAnswer(Shape):
    """One signed summand of a total."""

    sign: Literal[-1, 1]
    kind: Literal["dice", "modifier", "group"]
    text: str
    value: int
    label: str | None


class DieAnswer(Shape):
    """One die: its face, whether it counts, why it was rolled and where its face came from."""

    side: int | None = Field(default=None, ge=0, le=1, description="Of an opposed check")
    side_name: str | None = Field(
        default=None, description="Of an opposed check: the name the die's side rolls for"
    )
    round: int | None = Field(default=None, ge=1, description="Of an opposed check")
    index: int = Field(ge=0)
    sides: int = Field(ge=1)
    face: int
    counted: bool
    discarded: bool
    reason: Reason
    step: int = Field(ge=0)
    parent: int | None
    source: Provenance
    typed_by: str | None = Field(
        description="Who typed a manual die in (each side types its own); null for the "
        "server's dice"
    )
    epoch: int | None = Field(ge=1)
    nonce: int | None
    block: int | None
    word: int | None


class RulingAnswer(Shape):
    """The GM's ruling on a dispute, with its note."""

    outcome: Literal["upheld", "voided"]
    by: str
    note: str | None


class ContestantAnswer(Shape):
    """One side of an opposed check, in its last round."""

    name: str = Field(max_length=MAX_TEXT)
    expression: str = Field(max_length=MAX_EXPRESSION)
    total: int | None = Field(
        description="Null while the side's member has yet to roll their own dice"
    )
    advantage: list[SourceAnswer]
    disadvantage: list[SourceAnswer]
    score: int
    median: bool
    eased: list[SourceAnswer]
    hindered: list[SourceAnswer]
    parts: list[PartAnswer]
    divisors: list[int]
    rerolls_spent: int = Field(ge=0)
    rerolls_left: int = Field(ge=0)


class ShownRollAnswer(Shape):
    """A roll its viewer may see whole (docs/cli.md, --json)."""

    session_id: str
    roll_id: int = Field(ge=1)
    kind: RollKind
    roller: str
    for_: str = Field(alias="for", description="Whom the roll is for")
    mode: Mode = Field(description=MODE)
    blind: bool = Field(description="The same as mode blind")
    label: str | None = Field(max_length=MAX_LABEL)
    expression: str = Field(max_length=MAX_EXPRESSION)
    action_id: str
    status: Status
    rerolls_left: int = Field(ge=0)
    total: int
    target: int | None
    dc_modifier: int | None
    dc_label: str | None
    against: str | None
    success: bool | None
    margin: int | None
    voided: bool
    replaces: int | None
    replaced_by: int | None
    disputed: bool
    open_dispute: bool
    ruling: RulingAnswer | None
    hidden: bool = Field(description="A roll not public and not yet revealed")
    may_reveal: bool = Field(description="Whether the caller may reveal it to everyone now")
    line: str = Field(description="The roll in one line")
    exploding: bool
    manual: bool
    dice: list[DieAnswer]
    # A roll of one side.
    advantage: list[SourceAnswer] | None = None
    disadvantage: list[SourceAnswer] | None = None
    score: int | None = None
    median: bool | None = None
    eased: list[SourceAnswer] | None = None
    hindered: list[SourceAnswer] | None = None
    parts: list[PartAnswer] | None = None
    divisors: list[int] | None = None
    # An opposed check.
    contestants: list[ContestantAnswer] | None = Field(default=None, min_length=2, max_length=2)
    winner: str | None = None
    rounds: int | None = Field(default=None, ge=1)
    round_totals: list[list[int | None]] | None = Field(
        default=None,
        description="Each round's two totals; the other side's is null while its member has "
        "yet to roll their own dice",
    )
    waiting_for: str | None = None
    waiting_for_dice: bool | None = Field(
        default=None,
        description="Of an opposed check: whether waiting_for names a side that has yet to "
        "roll its own dice (roll it with POST .../rolls/{roll_id}/side), not to reroll",
    )


class HiddenRollAnswer(Shape):
    """A roll its viewer may not see: only that it happened, and who rolled."""

    session_id: str
    roll_id: int = Field(ge=1)
    roller: str
    mode: Literal["gm", "blind", "self"] = Field(description=MODE)
    blind: bool = Field(description="The same as mode blind")
    status: Literal["hidden"]
    text: str = Field(description='What the viewer reads of it, e.g. "Ann rolled privately"')


RollAnswer = ShownRollAnswer | HiddenRollAnswer


class RolledAnswer(ShownRollAnswer):
    """A roll command's answer: the roll, and the checkpoint the command produced."""

    checkpoint: str | None = Field(description=CHECKPOINT)


class MemberAnswer(Shape):
    """A member as anyone in the session sees them."""

    name: str = Field(max_length=MAX_TEXT)
    role: str = Field(json_schema_extra={"enum": ["gm", "player"]})
    client_seed: str = Field(max_length=MAX_TEXT)


class EpochAnswer(Shape):
    """A seed epoch: its commitment, and its seed once revealed."""

    epoch: int = Field(ge=1)
    commitment: str = Field(pattern="^[0-9a-f]{64}$")
    algorithm: str
    seed: str | None = Field(pattern="^[0-9a-f]{64}$")


class SessionAnswer(Shape):
    """A session as its member may see it."""

    session_id: str
    title: str = Field(max_length=MAX_TEXT)
    gm: str
    ended: bool
    disputes_until: str | None = Field(description="After the end: the dispute window's close")
    manual_dice_allowed: bool
    members: list[MemberAnswer]
    epochs: list[EpochAnswer]
    rolls: list[ShownRollAnswer | HiddenRollAnswer]
