"""The one roll form every face fills: a roll, a check, a save or an opposed check.

The CLI's options, the API's JSON body and Discord's slash-command options are three ways
to fill in the same form. The form alone turns into the session's typed command, so a
rule about which options go together is written once and its refusal reads the same on
every face; the limits below are the ones each face declares (click, the OpenAPI
document, Discord's option lengths) and the session itself enforces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from diceledger.domain.dice.notation import MAX_TEXT as MAX_EXPRESSION
from diceledger.domain.dice.request import MAX_AMOUNT, RerollScope, RollKind, Target
from diceledger.domain.errors import InvalidInputError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.decide_rolls import MAX_REROLLS
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.text import (
    MAX_ACTION_ID,
    MAX_AGAINST,
    MAX_LABEL,
    MAX_SALT,
    MAX_TEXT,
)

__all__ = [
    "MAX_ACTION_ID",
    "MAX_AGAINST",
    "MAX_AMOUNT",
    "MAX_EXPRESSION",
    "MAX_FACES",
    "MAX_LABEL",
    "MAX_REROLLS",
    "MAX_SALT",
    "MAX_SOURCES",
    "MAX_TEXT",
    "FormKind",
    "OtherSide",
    "RollForm",
]

MAX_SOURCES = 20  # sources of one modifier (advantage, ease ...) on one side
MAX_FACES = 1000  # typed-in faces of one request: as many as a roll may draw

# What a face asks for: "roll" is an effect roll, the CLI's and the API's plain word.
FormKind = Literal["roll", "effect", "damage", "check", "save", "opposed"]


@dataclass(frozen=True, slots=True)
class OtherSide:
    """The other side of an opposed check: who, their dice, modifiers and own rerolls.

    ``rolls_own_dice``: the side's member rolls its dice themselves, round after round.
    """

    name: str
    expression: str
    adv: tuple[Amount, ...] = ()
    dis: tuple[Amount, ...] = ()
    eased: tuple[Amount, ...] = ()
    hindered: tuple[Amount, ...] = ()
    reroll: int = 0
    rolls_own_dice: bool = False


@dataclass(frozen=True, slots=True)
class RollForm:
    """Everything a face may say about one roll, named as the API's body names it."""

    kind: FormKind
    expression: str = ""
    saved: str | None = None  # a saved roll of the roller's character, instead of expression
    target: int | None = None
    dc: int | None = None  # a DC's MOD (R4): the session derives the target
    dc_label: str | None = None
    dc_from: str | None = None  # a save's DC from its origin's sheet, by attribute name
    against: str | None = None
    adv: tuple[Amount, ...] = ()
    dis: tuple[Amount, ...] = ()
    median: bool = False
    eased: tuple[Amount, ...] = ()
    hindered: tuple[Amount, ...] = ()
    reroll: int = 0
    reroll_scope: RerollScope = RerollScope.EFFECT
    auto_reroll: bool = False
    action: str | None = None
    mode: RollMode | None = None
    blind: bool = False  # how clients asked for mode blind before there were modes
    for_: str | None = None  # a GM rolls for another member or an NPC
    label: str | None = None
    salt: str = ""
    faces: tuple[int, ...] | None = None
    replaces: int | None = None
    no_explode: bool = False
    vs: OtherSide | None = None

    def command(self, actor: str) -> cmd.RequestRoll | cmd.RequestOpposed:
        """Return the session command the form asks for; refuse options that do not fit."""
        if self.kind == "opposed":
            return self._opposed(actor)
        if self.vs is not None:
            raise InvalidInputError("'vs' is the other side of an opposed check only")
        return cmd.RequestRoll(
            kind=RollKind.EFFECT if self.kind == "roll" else RollKind(self.kind),
            expression=self.expression,
            advantage=self.adv,
            disadvantage=self.dis,
            eased=self.eased,
            hindered=self.hindered,
            median=self.median,
            exploding=not self.no_explode,
            target=self._target(),
            against=self.against,
            action_id=self.action,
            rerolls=self.reroll,
            reroll_scope=self.reroll_scope,
            auto_reroll=self.auto_reroll,
            mode=self._mode(),
            on_behalf_of=self.for_,
            label=self.label,
            salt=self.salt,
            faces=self.faces,
            replaces=self.replaces,
            dc_reference=self.dc_from,
            saved=self.saved,
        )

    def _mode(self) -> RollMode:
        if self.blind and self.mode not in (None, RollMode.BLIND):
            raise InvalidInputError(f"blind is mode blind; give one, not mode {self.mode}")
        return RollMode.BLIND if self.blind else (self.mode or RollMode.PUBLIC)

    def _target(self) -> Target | None:
        if self.target is not None and self.dc is not None:
            raise InvalidInputError("give a target or a dc, not both")
        if self.dc is not None:
            return Target.dc(self.dc, self.dc_label)  # the session derives the target (R4)
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
        other = self.vs
        return cmd.RequestOpposed(
            CheckSide(
                self.for_ or actor, self.expression, self.adv, self.dis, self.eased, self.hindered
            ),
            CheckSide(
                other.name, other.expression, other.adv, other.dis, other.eased, other.hindered
            ),
            median=self.median,
            exploding=not self.no_explode,
            action_id=self.action,
            rerolls=self.reroll,
            reroll_scope=self.reroll_scope,
            opponent_rerolls=other.reroll,
            mode=self._mode(),
            on_behalf_of=self.for_,
            label=self.label,
            salt=self.salt,
            faces=self.faces,
            opponent_rolls=other.rolls_own_dice,
        )
