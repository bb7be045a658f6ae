"""Exact odds as a use case: a typed question, a typed answer, the same for both faces."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from diceledger.domain.dice.notation import format_expression, parse
from diceledger.domain.dice.request import CheckDie, Modifier, RollSpec, Target
from diceledger.domain.errors import InvalidInputError, RollError
from diceledger.domain.json import JsonObject
from diceledger.domain.odds import Distribution, best_success, distribution, opposed_odds
from diceledger.domain.odds.opposed import OpposedOdds


@dataclass(frozen=True, slots=True)
class Side:
    """One roll to compute: the expression and its check options, one amount per source."""

    expression: str
    adv: tuple[int, ...] = ()
    dis: tuple[int, ...] = ()
    median: bool = False
    eased: tuple[int, ...] = ()
    hindered: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class OddsQuery:
    """A roll, a check against a target or DC, or an opposed check (``versus``)."""

    roll: Side
    target: int | None = None
    dc: int | None = None
    reroll: int = 0
    exploding: bool = True
    versus: Side | None = None
    vs_reroll: int = 0  # the other side's allowance in an opposed check

    def target_value(self) -> int | None:
        """Return the target to meet, derived from the DC when one is given (R4)."""
        if self.target is not None and self.dc is not None:
            raise InvalidInputError("give a target or a DC, not both")
        return Target.dc(self.dc).value if self.dc is not None else self.target


@dataclass(frozen=True, slots=True)
class SingleOdds:
    """A roll's distribution and, with a target, the chance to meet it."""

    spec: RollSpec
    rerolls: int
    target: int | None
    distribution: Distribution

    @property
    def success(self) -> Fraction | None:
        """Return P(total >= target), or None without a target."""
        return None if self.target is None else self.distribution.at_least(self.target)

    def best(self) -> Fraction | str | None:
        """Return the chance of success when every reroll is spent as well as possible.

        None without a target or an allowance; the reason in words when it cannot be
        worked out exactly for this roll.
        """
        if self.target is None or not self.rerolls:
            return None
        try:
            return best_success(self.spec, self.target, self.rerolls)
        except RollError as error:
            return str(error)

    def as_json(self) -> JsonObject:
        """Return exact fractions and floats."""
        dist, success, best = self.distribution, self.success, self.best()
        return {
            "roll": describe(self.spec, self.rerolls),
            "reroll_policy": reroll_policy(self.rerolls),
            "target": self.target,
            "success": None if success is None else exact(success),
            "best_success": exact(best) if isinstance(best, Fraction) else None,
            "best_success_refused": best if isinstance(best, str) else None,
            "mean": exact(dist.mean),
            "truncated_mass": exact(dist.truncated_mass),
            "distribution": [{"total": t, **exact(p)} for t, p in dist.items()],
        }


@dataclass(frozen=True, slots=True)
class VersusOdds:
    """An opposed check's chances to win, lose or tie its first round (rerolls included)."""

    spec: RollSpec
    other: RollSpec
    odds: OpposedOdds
    mean: Fraction
    other_mean: Fraction
    rerolls: int = 0
    other_rerolls: int = 0

    def as_json(self) -> JsonObject:
        """Return exact fractions and floats."""
        return {
            "roll": describe(self.spec, self.rerolls),
            "versus": describe(self.other, self.other_rerolls),
            "reroll_policy": reroll_policy(self.rerolls, self.other_rerolls),
            "win": exact(self.odds.win),
            "lose": exact(self.odds.lose),
            "tie": exact(self.odds.tie),
            "mean": exact(self.mean),
            "versus_mean": exact(self.other_mean),
        }


def odds_of(query: OddsQuery) -> SingleOdds | VersusOdds:
    """Compute the exact odds the query asks for."""
    roll, versus = query.roll, query.versus
    if versus is None:
        if query.vs_reroll:
            raise InvalidInputError("a reroll allowance of the other side needs an opposed check")
        # A target alone asks P(total >= target): a score-0 check has the odds of a plain
        # roll, and a plain roll needs no single check die (R3).
        is_check = bool(roll.adv or roll.dis or roll.median)
        spec = spec_of(roll, is_check, query.exploding)
        target = query.target_value()
        return SingleOdds(spec, query.reroll, target, distribution(spec, query.reroll))
    if query.target is not None or query.dc is not None:
        raise InvalidInputError("an opposed check takes no target or DC")
    spec = spec_of(roll, True, query.exploding)
    other = spec_of(versus, True, query.exploding)
    mine, theirs = query.reroll, query.vs_reroll
    odds = opposed_odds(spec, other, mine, theirs)
    mean, other_mean = distribution(spec, mine).mean, distribution(other, theirs).mean
    return VersusOdds(spec, other, odds, mean, other_mean, mine, theirs)


def spec_of(side: Side, is_check: bool, exploding: bool) -> RollSpec:
    """Return the roll spec of one side."""
    check = CheckDie(_amount(side.adv), _amount(side.dis), side.median) if is_check else None
    expression = parse(side.expression)
    return RollSpec(expression, check, _amount(side.eased), _amount(side.hindered), exploding)


# The odds of a roll with rerolls assume the rules' default policy (R11), not a player's
# own choices: said beside every figure that depends on it.
REROLL_POLICY = (
    "rerolls as the default policy spends them (R11): the lowest die, while it is below "
    "its die's average"
)


def reroll_policy(*allowances: int) -> str | None:
    """Return the reroll policy the odds assume, or None when no side may reroll."""
    return REROLL_POLICY if any(allowances) else None


def describe(spec: RollSpec, rerolls: int) -> str:
    """Return a roll spec in words: expression, advantage, median, ease, rerolls."""
    parts = [format_expression(spec.expression)]
    if spec.check is not None and spec.check.score:
        kind = "advantage" if spec.check.score > 0 else "disadvantage"
        parts.append(f"{kind} {abs(spec.check.score)}")
    if spec.check is not None and spec.check.median:
        parts.append("median")
    if spec.ease:
        parts.append(f"eased {spec.ease}" if spec.ease > 0 else f"hindered {-spec.ease}")
    if not spec.exploding:
        parts.append("no explosions")
    if rerolls:
        parts.append(f"reroll {rerolls}")
    return ", ".join(parts)


def exact(value: Fraction) -> JsonObject:
    """Return a probability as an exact fraction and a float."""
    return {"fraction": str(value), "float": float(value)}


def _amount(values: tuple[int, ...]) -> tuple[Modifier, ...]:
    return tuple(Modifier(value) for value in values)
