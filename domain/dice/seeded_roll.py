"""The engine's fast path for a roll's first draw from the seeded source.

It draws exactly the dice of ``engine.start`` in the same order (R14, docs/verification.md,
"Draw order"): the base dice left to right, then the chain of every counted die, left to
right, each to its end. It works on flat lists of faces and stream places and the spec's
compiled plan, and makes no ``Die`` or ``Draw`` records (the state builds them if they are
read). tests/domain/dice/test_seeded_fast_path.py holds it equal to the readable engine.
"""

from __future__ import annotations

from diceledger.domain.dice.ladder import step_down
from diceledger.domain.dice.plan import RollPlan
from diceledger.domain.dice.request import RollSpec
from diceledger.domain.dice.rollstate import RollState
from diceledger.domain.dice.sources import SeededSource
from diceledger.domain.errors import ExplosionChainError

MAX_CHAIN = 100


def start_seeded(spec: RollSpec, source: SeededSource, rerolls: int = 0) -> RollState:
    """Draw a roll's base dice, choose the counted dice, explode them (as ``engine.start``)."""
    plan = spec.plan
    faces: list[int] = []
    places: list[int] = []
    sides = plan.sides
    source.take(sides, faces, places)
    chains: list[tuple[int, ...] | None] = [()] * len(faces)
    values = [sum(faces[span]) for span in plan.spans]
    # A counted die explodes on its highest face (R12, R13).
    hits = [slot for slot in plan.exploding if faces[slot] == sides[slot]]
    if plan.pool is None:
        counted = plan.before_pool
    else:
        counted = _counted_with_pool(plan, faces, chains)
        chosen = counted[len(plan.before_pool)]
        values[plan.terms[chosen]] = faces[chosen]
        if plan.explodes[chosen] and faces[chosen] == sides[chosen]:
            hits.append(chosen)
            hits.sort()
    for slot in hits:  # each chain to its end, in slot order
        start = len(faces)
        values[plan.terms[slot]] += _explode(source, slot, sides[slot], faces, places)
        chains[slot] = tuple(range(start, len(faces)))
    chains += [None] * (len(faces) - len(chains))
    return RollState.drawn(spec, faces, places, tuple(chains), counted, values, rerolls)


def _counted_with_pool(
    plan: RollPlan, faces: list[int], chains: list[tuple[int, ...] | None]
) -> tuple[int, ...]:
    """Return the counted slots of a check: the pool's counted die among the others.

    Marks the pool's other dice as never counted (no chain) in ``chains``.
    """
    assert plan.pool is not None
    start, stop = plan.pool.start, plan.pool.stop
    pool = faces[start:stop]
    face = sorted(pool, reverse=True)[plan.counted_rank]
    chosen = start + pool.index(face)  # equal faces: the lowest index counts
    chains[start:stop] = [None] * (stop - start)
    chains[chosen] = ()
    return (*plan.before_pool, chosen, *plan.after_pool)


def _explode(
    source: SeededSource, slot: int, sides: int, faces: list[int], places: list[int]
) -> int:
    """Draw the chain of the die in ``slot`` (its face is its size); return the chain's sum."""
    added = 0
    size = sides
    face = sides
    while face == size:
        if added == MAX_CHAIN:
            raise ExplosionChainError(
                f"die {slot} exploded more than {MAX_CHAIN} times; the dice source is broken"
            )
        size = sides if not added else step_down(size)
        face = source.take_one(size, faces, places)
        added += 1
    return sum(faces[len(faces) - added :])
