"""R6, R11: exact opposed odds with each side's rerolls agree with a brute-force computation.

The brute force shares nothing with domain/odds: each side's round is the real dice engine
run on every possible sequence of faces under the default policy, which gives the chance
of each (rerolls spent, total); the check's chance to be won is then the solution of the
linear equations of docs/rules.md's rounds (a tie starts a fresh round with what each side
left), solved by plain Gaussian elimination over fractions.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from diceledger.domain.dice.engine import roll
from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import CheckDie, Modifier, RollSpec
from diceledger.domain.errors import RollError
from diceledger.domain.odds import opposed_odds
from tests.domain.odds.test_rerolls_odds import NeedsFace, ScriptedFaces

Round = dict[tuple[int, int], Fraction]  # (rerolls spent, total) -> chance


def engine_round(spec: RollSpec, allowance: int) -> Round:
    """Return the engine's chance of each (spent, total) for one side's round."""
    outcomes: Round = {}
    pending: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while pending:
        faces, mass = pending.pop()
        try:
            state = roll(spec, ScriptedFaces(faces), rerolls=allowance)
        except NeedsFace as need:
            pending.extend((faces + (f,), mass / need.sides) for f in range(1, need.sides + 1))
            continue
        key = (allowance - state.rerolls_left, state.total)
        outcomes[key] = outcomes.get(key, Fraction(0)) + mass
    return outcomes


def solve(matrix: list[list[Fraction]], values: list[Fraction]) -> list[Fraction]:
    """Solve ``matrix @ x = values`` by Gauss-Jordan elimination with exact fractions."""
    size = len(values)
    rows = [row[:] + [value] for row, value in zip(matrix, values, strict=True)]
    for column in range(size):
        pivot = next(r for r in range(column, size) if rows[r][column] != 0)
        rows[column], rows[pivot] = rows[pivot], rows[column]
        lead = rows[column][column]
        rows[column] = [entry / lead for entry in rows[column]]
        for r in range(size):
            if r != column and rows[r][column] != 0:
                factor = rows[r][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column], strict=True)]
    return [row[-1] for row in rows]


def brute_force_win(a: RollSpec, b: RollSpec, a_rerolls: int, b_rerolls: int) -> Fraction:
    """Return side a's chance to win in the end, from the engine and the round equations."""
    first = [engine_round(a, left) for left in range(a_rerolls + 1)]
    second = [engine_round(b, left) for left in range(b_rerolls + 1)]
    states = [(i, j) for i in range(a_rerolls + 1) for j in range(b_rerolls + 1)]
    place = {state: n for n, state in enumerate(states)}
    # x[i, j] - sum(tie chance * x[i - spent_a, j - spent_b]) = win chance
    matrix = [[Fraction(0)] * len(states) for _ in states]
    values = [Fraction(0)] * len(states)
    for (i, j), row in place.items():
        matrix[row][row] += 1
        for (spent_a, total_a), p in first[i].items():
            for (spent_b, total_b), q in second[j].items():
                if total_a > total_b:
                    values[row] += p * q
                elif total_a == total_b:
                    matrix[row][place[(i - spent_a, j - spent_b)]] -= p * q
    return solve(matrix, values)[place[(a_rerolls, b_rerolls)]]


def check(text: str, advantage: int = 0) -> RollSpec:
    check_die = CheckDie(advantage=(Modifier(advantage),)) if advantage else CheckDie()
    return RollSpec(parse(text), check_die)


@pytest.mark.parametrize(
    ("a", "b", "a_rerolls", "b_rerolls"),
    [
        (check("1d4n"), check("1d4n"), 1, 1),
        (check("1d4n"), check("1d4n"), 0, 2),
        (check("1d6n"), check("1d4n+1"), 2, 1),
        (check("1d4n", advantage=1), check("1d6n"), 1, 2),
        (check("1d4n+1d4n"), check("1d6n+1"), 1, 1),
        (check("1d8n-2"), check("1d4n"), 3, 0),
    ],
)
def test_r6_r11_opposed_odds_with_rerolls_equal_the_brute_force(
    a: RollSpec, b: RollSpec, a_rerolls: int, b_rerolls: int
) -> None:
    odds = opposed_odds(a, b, a_rerolls, b_rerolls)
    expected = brute_force_win(a, b, a_rerolls, b_rerolls)
    assert odds.win == expected
    assert odds.lose == 1 - expected
    first = engine_round(a, a_rerolls)
    second = engine_round(b, b_rerolls)
    tie = sum(p * q for (_, x), p in first.items() for (_, y), q in second.items() if x == y)
    assert odds.tie == tie


def test_r6_without_rerolls_the_odds_are_those_of_identical_rounds() -> None:
    a, b = check("1d4n"), check("1d4n")
    assert opposed_odds(a, b, 0, 0) == opposed_odds(a, b)
    assert opposed_odds(a, b).win == Fraction(1, 2) == brute_force_win(a, b, 0, 0)


def test_r11_an_allowance_the_odds_cannot_follow_is_refused_in_plain_words() -> None:
    with pytest.raises(RollError, match="too many dice for exact odds: 144 pairs of allowances"):
        opposed_odds(check("1d20"), check("1d20"), 11, 11)
