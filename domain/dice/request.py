"""What a roller asks for: the expression plus the check-die and modifier options."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from diceledger.domain.dice.ast import Expression
from diceledger.domain.dice.plan import RollPlan, compile_plan
from diceledger.domain.errors import RollError

MAX_DICE_PER_ROLL = 1000
# Amounts and targets stay far inside the integers every JSON reader handles exactly.
MAX_AMOUNT = 1_000_000
DC_BASE = 10


class RollKind(StrEnum):
    """What a roll is for; decides which reroll scopes may touch it (R11)."""

    EFFECT = "effect"
    DAMAGE = "damage"
    CHECK = "check"
    SAVE = "save"
    OPPOSED = "opposed"


class RerollScope(StrEnum):
    """Which rolls of an action a reroll allowance may be spent on (R11)."""

    EFFECT = "effect"  # any roll of the action (the default)
    DAMAGE = "damage"  # only rolls of kind damage

    def covers(self, kind: RollKind) -> bool:
        """Tell whether an allowance of this scope may be spent on a roll of ``kind``."""
        return self is RerollScope.EFFECT or kind is RollKind.DAMAGE


@dataclass(frozen=True, slots=True)
class Modifier:
    """A labelled amount: one source of Advantage, Disadvantage, Eased or Hindered."""

    amount: int
    label: str | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.amount <= MAX_AMOUNT:
            raise RollError(f"an amount must be between 0 and {MAX_AMOUNT:,}, got {self.amount}")


def total(modifiers: tuple[Modifier, ...]) -> int:
    """Return the sum of the amounts of several sources."""
    return sum(m.amount for m in modifiers)


@dataclass(frozen=True, slots=True)
class CheckDie:
    """How the check die is rolled: netted advantage score (R7) and median (R8).

    ``score``, ``pool_size`` and ``counted_rank`` are worked out once, when the request is
    made, since every die drawn for the roll consults them.
    """

    advantage: tuple[Modifier, ...] = ()
    disadvantage: tuple[Modifier, ...] = ()
    median: bool = False
    # sum(advantage) - sum(disadvantage) (R7).
    score: int = field(init=False, compare=False, repr=False)
    # How many check dice are rolled: 1+|X|, or 3+|X| for a median check.
    pool_size: int = field(init=False, compare=False, repr=False)
    # Which face counts, as a 0-based rank in descending face order: advantage the highest,
    # disadvantage the lowest; median the middle of three, the second-highest with
    # advantage, the second-lowest with disadvantage.
    counted_rank: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        score = total(self.advantage) - total(self.disadvantage)
        size = (3 if self.median else 1) + abs(score)
        if self.median:
            rank = size - 2 if score < 0 else 1
        else:
            rank = 0 if score >= 0 else size - 1
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "pool_size", size)
        object.__setattr__(self, "counted_rank", rank)


@dataclass(frozen=True, slots=True)
class Target:
    """The number a check must meet or beat (R3); for a DC, its inputs too (R4)."""

    value: int
    dc_modifier: int | None = None
    dc_label: str | None = None

    def __post_init__(self) -> None:
        if abs(self.value) > MAX_AMOUNT:
            raise RollError(f"a target must be within ±{MAX_AMOUNT:,}, got {self.value}")
        # A DC's target is derived, never chosen: a request that names a DC and another
        # target could be recorded, and would then fail its own verification.
        if self.dc_modifier is not None and self.value != DC_BASE + self.dc_modifier:
            raise RollError(
                f"a DC of {self.dc_modifier} is a target of {DC_BASE + self.dc_modifier}, "
                f"not {self.value}"
            )
        if self.dc_modifier is None and self.dc_label is not None:
            raise RollError("a DC label needs a DC modifier")

    @classmethod
    def dc(cls, modifier: int, label: str | None = None) -> Target:
        """Return the target of a Determined Check: 10 + the origin's MOD or Quality."""
        return cls(DC_BASE + modifier, dc_modifier=modifier, dc_label=label)

    @property
    def is_dc(self) -> bool:
        """Tell whether this target came from a DC."""
        return self.dc_modifier is not None


@dataclass(frozen=True, slots=True)
class RollSpec:
    """A roll as requested, before any die is drawn.

    ``check`` is None for a plain roll (every die counts). For a check, the first
    single-die term of the expression (usually ``1d20``) is the check die; only it is
    multiplied by advantage or median.
    """

    expression: Expression
    check: CheckDie | None = None
    eased: tuple[Modifier, ...] = ()
    hindered: tuple[Modifier, ...] = ()
    exploding: bool = True
    # Worked out once from the fields above (see __post_init__): the index of the check-die
    # term (None for a plain roll), the net Eased minus Hindered (R9), and the slots
    # (base dice) of each term in draw order, the check term having one per pool die.
    check_term: int | None = field(init=False, compare=False, repr=False)
    ease: int = field(init=False, compare=False, repr=False)
    layout: tuple[tuple[int, ...], ...] = field(init=False, compare=False, repr=False)
    # The spec compiled for the engine (see plan.py).
    plan: RollPlan = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        terms = self.expression.terms
        check_term = None
        if self.check is not None:
            check_term = next((t.term for t in terms if t.count == 1), None)
            if check_term is None:
                raise RollError(
                    f"a check needs a single check die such as 1d20 in '{self.expression.text}'"
                )
        dice = self.expression.dice_count + (self.check.pool_size - 1 if self.check else 0)
        if dice > MAX_DICE_PER_ROLL:
            raise RollError(f"a roll may use at most {MAX_DICE_PER_ROLL} dice, this one {dice}")
        layout: list[tuple[int, ...]] = []
        start = 0
        for term in terms:
            size = self.check.pool_size if self.check and term.term == check_term else term.count
            layout.append(tuple(range(start, start + size)))
            start += size
        object.__setattr__(self, "check_term", check_term)
        object.__setattr__(self, "ease", total(self.eased) - total(self.hindered))
        object.__setattr__(self, "layout", tuple(layout))
        rank = self.check.counted_rank if self.check else 0
        plan = compile_plan(
            self.expression, self.layout, check_term, rank, self.exploding, self.ease
        )
        object.__setattr__(self, "plan", plan)


def build_spec(
    expression: Expression,
    *,
    check: bool,
    advantage: tuple[Modifier, ...] = (),
    disadvantage: tuple[Modifier, ...] = (),
    median: bool = False,
    eased: tuple[Modifier, ...] = (),
    hindered: tuple[Modifier, ...] = (),
    exploding: bool = True,
) -> RollSpec:
    """Return the spec of a check or plain roll, refusing check options on a plain roll (R7)."""
    if not check and (advantage or disadvantage or median):
        raise RollError("advantage, disadvantage and median apply to checks, not to a plain roll")
    check_die = CheckDie(advantage, disadvantage, median) if check else None
    return RollSpec(expression, check_die, eased, hindered, exploding)
