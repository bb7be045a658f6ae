"""The shared feed fold: one fold for all viewers, each shown what it would see alone, and
viewers who see a roll alike share the very same items."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.projections.feed import SharedFeed
from diceledger.domain.projections.logged import Logged
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.state import Roll
from tests.domain.projections.readable_feed import ReadableFeed
from tests.domain.projections.script import Script

VIEWERS = ("gm", "ann", "bob")  # the GM, a player who rolls, another player


def request(mode: RollMode) -> cmd.RequestRoll:
    return cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12), mode=mode, faces=(15,))


def revealer(roll: Roll) -> str:
    """Return who may show a hidden roll to everyone: its roller for a self roll, else the GM."""
    return roll.request.roller if roll.mode is RollMode.SELF else "gm"


def shown_alike(batches: list[list[Logged]]) -> None:
    """Hold the shared fold's items, batch by batch, equal to each viewer's own fold."""
    shared = SharedFeed()
    alone = {viewer: ReadableFeed(viewer) for viewer in VIEWERS}
    for batch in batches:
        shown = shared.extend(batch, VIEWERS)
        for viewer in VIEWERS:
            assert list(shown[viewer]) == alone[viewer].extend(batch), viewer


@pytest.mark.parametrize("mode", list(RollMode))
@pytest.mark.parametrize("roller", ["gm", "ann"])
def test_each_mode_shows_the_gm_the_roller_and_another_player_what_they_would_see_alone(
    mode: RollMode, roller: str
) -> None:
    script = Script.table("ann", "bob")
    rolled = script.do(roller, request(mode))
    roll = script.state.rolls[script.last_roll()]
    batches = [list(script.log[: -len(rolled)]), rolled]
    if roll.hidden:
        batches.append(script.do(revealer(roll), cmd.RevealRoll(roll.roll_id)))
    shown_alike(batches)


@pytest.mark.parametrize("mode", list(RollMode))
@pytest.mark.parametrize("roller", ["gm", "ann"])
def test_viewers_who_see_a_roll_alike_share_its_items_and_its_json(
    mode: RollMode, roller: str
) -> None:
    script = Script.table("ann", "bob", "cy")
    shared = SharedFeed()
    shared.extend(script.log, ())
    shown = shared.extend(script.do(roller, request(mode)), ("gm", "ann", "bob", "cy"))
    # bob and cy are both players who did not roll: in every mode they see alike.
    assert shown["bob"] is shown["cy"]
    roll = script.state.rolls[script.last_roll()]
    if not roll.hidden:
        assert shown["gm"] is shown["ann"] is shown["bob"]
    kinds = {id(items) for items in shown.values()}
    assert len(kinds) <= 3  # hidden, shown, shown to the one who may reveal it
    assert shown["bob"][0].data is shown["cy"][0].data  # encoded once for both


# An evening's steps: a member rolls in a mode, a hidden roll is revealed, or a read ends.
Step = tuple[str, int, RollMode]
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("roll"), st.integers(0, len(VIEWERS) - 1), st.sampled_from(RollMode)),
        st.tuples(st.just("reveal"), st.integers(0, 20), st.just(RollMode.PUBLIC)),
        st.tuples(st.just("read"), st.just(0), st.just(RollMode.PUBLIC)),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(steps=STEPS)
def test_however_rolls_reveals_and_reads_interleave_each_viewer_sees_what_it_would_alone(
    steps: list[Step],
) -> None:
    script = Script.table("ann", "bob")
    batches: list[list[Logged]] = [list(script.log)]
    pending: list[Logged] = []
    for action, number, mode in steps:
        if action == "roll":
            pending.extend(script.do(VIEWERS[number], request(mode)))
        elif action == "reveal":
            hidden = [roll for roll in script.state.rolls.values() if roll.hidden]
            if hidden:
                roll = hidden[number % len(hidden)]
                pending.extend(script.do(revealer(roll), cmd.RevealRoll(roll.roll_id)))
        elif pending:
            batches.append(pending)
            pending = []
    shown_alike([*batches, pending])
