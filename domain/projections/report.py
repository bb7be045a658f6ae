"""Statistics as a viewer may see them, derived from the projection's counters.

``player_reports`` picks, per session, the scope the viewer may see (``all`` for a GM of
that session, else ``public``), sums the counters per player for each session and across
all sessions, and derives rates, luck, chi-square tests and the rest. The formulas are in
docs/statistics.md.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from diceledger.domain.dice.ladder import SIZES
from diceledger.domain.projections.facts import CHECKS, SCALE
from diceledger.domain.projections.power import rolls_needed
from diceledger.domain.projections.statistics import ALL, OWN, PUBLIC, Key
from diceledger.domain.stats.chisquare import statistic, survival

ACROSS_SESSIONS = "ALL"  # session ids are lowercase slugs, so this never names a session
KINDS = ("effect", "damage", "check", "save", "opposed")
MIN_PER_FACE = 5
Value = int | float | None


@dataclass(frozen=True, slots=True)
class DieReport:
    """One die size of one player: the face histogram and its goodness of fit."""

    sides: int
    faces: tuple[int, ...]  # count of face 1, 2, ... sides
    figures: dict[str, Value]


@dataclass(frozen=True, slots=True)
class PlayerReport:
    """One player's statistics in one session, or across all sessions."""

    session_id: str
    player: str
    groups: dict[str, dict[str, Value]]
    dice: tuple[DieReport, ...]


Visible = tuple[str, str, str, int]  # session, player, metric, amount


def visible_counters(
    counters: Iterable[tuple[Key, int]], roles: Mapping[tuple[str, str], str], viewer: str
) -> Iterator[Visible]:
    """Keep, per session, the scope the viewer may see: ``all`` for its GMs, else ``public``
    and, for the viewer's own figures, ``own``: their rolls the others may not see."""
    for (session, name, scope, metric), amount in counters:
        gm = roles.get((session, viewer)) == "gm"
        if scope == (ALL if gm else PUBLIC) or (scope == OWN and not gm and name == viewer):
            yield session, name, metric, amount


def player_reports(
    visible: Iterable[Visible], session_id: str | None = None, player: str | None = None
) -> list[PlayerReport]:
    """Return per-session reports, then (without a session filter) the across-all ones."""
    per_session: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for session, name, metric, amount in visible:
        if session_id is not None and session != session_id:
            continue
        if player is not None and name != player:
            continue
        per_session[(session, name)][metric] += amount
    reports = [derive(s, name, m) for (s, name), m in sorted(per_session.items())]
    if session_id is None:
        overall: dict[str, Counter[str]] = defaultdict(Counter)
        for (_, name), metrics in per_session.items():
            overall[name].update(metrics)
        reports += [derive(ACROSS_SESSIONS, name, m) for name, m in sorted(overall.items())]
    return reports


def derive(session_id: str, player: str, m: Mapping[str, int]) -> PlayerReport:
    """Derive one report's figures from its summed counters."""
    rolls = {kind: m.get(f"rolls.{kind}", 0) for kind in KINDS}
    outcomes: dict[str, Value] = {}
    for kind in CHECKS:
        outcomes[f"{kind}s_made" if kind != "opposed" else "opposed_made"] = rolls[kind]
        outcomes[f"{kind}s_won" if kind != "opposed" else "opposed_won"] = m.get(f"won.{kind}", 0)
    made = sum(rolls[kind] for kind in CHECKS)
    won = sum(m.get(f"won.{kind}", 0) for kind in CHECKS)
    outcomes |= {"made": made, "won": won, "success_rate": _ratio(won, made)}
    spent = m.get("rerolls.spent", 0)
    chains = [
        int(metric.split(".")[1])
        for metric, count in m.items()
        if metric.startswith("chain.") and count
    ]
    groups: dict[str, dict[str, Value]] = {
        "rolls": {**rolls, "total": sum(rolls.values())},
        "outcomes": outcomes,
        "luck": _luck(m),
        "explosions": {"count": m.get("explosions", 0), "longest_chain": max(chains, default=0)},
        "rerolls": {
            "spent": spent,
            "gain": m.get("rerolls.gain", 0),
            "mean_gain": _ratio(m.get("rerolls.gain", 0), spent),
        },
        "disputes": {
            "raised": m.get("disputes.raised", 0),
            "upheld": m.get("disputes.upheld", 0),
            "voided": m.get("disputes.voided", 0),
        },
        "dice_source": {"seeded": m.get("source.seeded", 0), "manual": m.get("source.manual", 0)},
        "excluded": {
            "voided": m.get("excluded.voided", 0),
            "hidden": m.get("excluded.hidden", 0),
        },
    }
    dice = tuple(
        _die(sides, tuple(m.get(f"face.{sides}.{face}", 0) for face in range(1, sides + 1)))
        for sides in SIZES
    )
    return PlayerReport(session_id, player, groups, tuple(d for d in dice if sum(d.faces)))


def _luck(m: Mapping[str, int]) -> dict[str, Value]:
    observed = m.get("luck.observed", 0)
    expected = m.get("luck.expected_e12", 0) / SCALE
    variance = m.get("luck.variance_e12", 0) / SCALE
    sd = math.sqrt(variance)
    return {
        "rated": m.get("luck.rated", 0),
        "unrated": m.get("luck.unrated", 0),
        "observed": observed,
        "expected": round(expected, 6),
        "luck": round(observed - expected, 6),
        "sd": round(sd, 6),
        "z_score": round((observed - expected) / sd, 6) if sd > 0 else None,
    }


def _die(sides: int, faces: tuple[int, ...]) -> DieReport:
    n = sum(faces)
    fair_mean = (sides + 1) / 2
    mean = sum(face * count for face, count in enumerate(faces, start=1)) / n if n else None
    chi_square = statistic(faces, [n / sides] * sides) if n else None
    figures: dict[str, Value] = {
        "rolls": n,
        "mean": round(mean, 6) if mean is not None else None,
        "fair_mean": fair_mean,
        "chi_square": round(chi_square, 6) if chi_square is not None else None,
        "df": sides - 1,
        "p_value": round(survival(chi_square, sides - 1), 6) if chi_square is not None else None,
        "too_few": int(n < MIN_PER_FACE * sides),
        "rolls_needed": rolls_needed(sides),
    }
    return DieReport(sides, faces, figures)


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 6) if denominator else None
