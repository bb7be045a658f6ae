"""A request's spec, built once per process and shared, is the spec built afresh.

Deciding, folding and viewing a roll each ask its request for a side's spec; ``spec_of``
builds it once and hands out the same immutable spec after (issue 31: CPU per roll). Its
oracle is ``build_spec`` over the parsed expression, as the engine's callers built it
before: every field and the compiled plan must agree, and a request that cannot be built
must fail the same way every time it is asked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.notation import parse
from diceledger.domain.dice.request import RollKind, RollSpec, build_spec
from diceledger.domain.errors import DiceledgerError
from diceledger.domain.session import events as ev
from diceledger.domain.session.rolls import CHECK_KINDS, modifiers, spec_of

AMOUNTS = st.lists(
    st.builds(ev.Amount, st.integers(1, 3), st.sampled_from([None, "Flanking", "Torch"])),
    max_size=2,
).map(tuple)
SIDES = st.builds(
    ev.CheckSide,
    name=st.sampled_from(["ann", "ogre"]),
    expression=st.sampled_from(["1d20", "1d20+3", "2d6+1d4-1", "3d6", "1d8x", "d%", "4d6k3"]),
    advantage=AMOUNTS,
    disadvantage=AMOUNTS,
    eased=AMOUNTS,
    hindered=AMOUNTS,
)
# A request lends spec_of only its kind, median and exploding.
TEMPLATE = ev.RollRequested(
    **{f.name: None for f in dataclasses.fields(ev.RollRequested)}  # type: ignore[arg-type]
)


def fresh(request: ev.RollRequested, side: ev.CheckSide) -> RollSpec:
    return build_spec(
        parse(side.expression),
        check=RollKind(request.kind) in CHECK_KINDS,
        advantage=modifiers(side.advantage),
        disadvantage=modifiers(side.disadvantage),
        median=request.median,
        eased=modifiers(side.eased),
        hindered=modifiers(side.hindered),
        exploding=request.exploding,
    )


Build = Callable[[ev.RollRequested, ev.CheckSide], RollSpec]


def built(request: ev.RollRequested, side: ev.CheckSide, build: Build) -> object:
    """The spec and its plan, or the error's type and message when it cannot be built."""
    try:
        spec = build(request, side)
    except DiceledgerError as error:
        return type(error), str(error)
    return spec, spec.plan, spec.check_term, spec.ease, spec.layout


@settings(max_examples=200, deadline=None)
@given(
    side=SIDES,
    kind=st.sampled_from(["effect", "damage", "check", "save", "opposed"]),
    median=st.booleans(),
    exploding=st.booleans(),
)
def test_a_shared_spec_is_the_spec_built_afresh_and_fails_alike(
    side: ev.CheckSide, kind: str, median: bool, exploding: bool
) -> None:
    request = dataclasses.replace(TEMPLATE, kind=kind, median=median, exploding=exploding)
    expected = built(request, side, fresh)
    assert built(request, side, spec_of) == expected
    assert built(request, side, spec_of) == expected  # asked again: from the cache


def test_r7_a_plain_roll_with_advantage_is_refused_each_time_it_is_asked() -> None:
    side = ev.CheckSide("ann", "2d6", advantage=(ev.Amount(1),))
    request = dataclasses.replace(TEMPLATE, kind="damage", median=False, exploding=True)
    for _ in range(2):
        with pytest.raises(DiceledgerError, match="advantage"):
            spec_of(request, side)
