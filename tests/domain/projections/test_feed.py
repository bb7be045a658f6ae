"""The live feed: each batch as a replay would show it then, with each roll's current view."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.projections.feed import Feed, FeedItem
from diceledger.domain.projections.logged import Logged
from diceledger.domain.projections.timeline import BLIND, timeline
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.views import roll_view
from diceledger.domain.session.visibility import hidden_from
from tests.domain.projections.script import SEED, Script
from tests.domain.projections.test_timeline import played

BLIND_CHECK = cmd.RequestRoll(
    RollKind.CHECK,
    "1d20+4",
    target=Target(14),
    mode=RollMode.BLIND,
    on_behalf_of="goblin",
    label="sneaks past",
    faces=(17,),
)


def fed(script: Script, viewer: str, batches: list[list[Logged]]) -> list[FeedItem]:
    feed = Feed(viewer)
    return [item for batch in batches for item in feed.extend(batch)]


def test_a_feed_read_in_one_batch_gives_the_replay_lines_of_its_viewer() -> None:
    script = played()
    for viewer in ("gm", "ann", "bob"):
        items = fed(script, viewer, [script.log])
        replayed = list(timeline(script.log, hidden_from(script.state, viewer)))
        assert [item.line for item in items] == replayed
        assert [item.version for item in items] == list(range(1, len(script.log) + 1))
        assert [item.event for item in items] == [line.event for line in replayed]


def test_events_of_a_roll_carry_its_view_and_others_carry_none() -> None:
    script = played()
    items = fed(script, "ann", [script.log])
    for item in items:
        if item.line.roll_id is None:
            assert item.roll is None
        else:
            roll = script.state.rolls[item.line.roll_id]
            assert item.roll == roll_view(script.state, roll, "ann")


def commands(script: Script) -> list[list[Logged]]:
    """Cut the log into its commands (the script records each a minute after the last)."""
    grouped: dict[object, list[Logged]] = {}
    for item in script.log:
        grouped.setdefault(item.recorded_at, []).append(item)
    return list(grouped.values())


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=12))
def test_each_event_is_fed_once_in_order_however_the_commands_are_batched(
    sizes: list[int],
) -> None:
    # A store read always ends on a command boundary: each append is one transaction.
    script = played()
    appended = commands(script)
    batches, start = [], 0
    for size in sizes:
        batches.append([item for command in appended[start : start + size] for item in command])
        start += size
    batches.append([item for command in appended[start:] for item in command])
    items = fed(script, "bob", batches)
    assert [item.version for item in items] == list(range(1, len(script.log) + 1))
    # With no blind roll revealed in between, every line is the replay's line.
    assert [item.line for item in items] == list(
        timeline(script.log, hidden_from(script.state, "bob"))
    )


def test_a_feed_resumed_after_a_version_gives_only_the_later_events_unchanged() -> None:
    script = played()
    whole = fed(script, "ann", [script.log])
    resumed = Feed("ann").extend(script.log, after=7)
    assert resumed == whole[7:]


def test_a_player_sees_a_blind_roll_as_the_gm_rolling_blind_with_the_hidden_stub() -> None:
    script = Script.table("ann")
    feed = Feed("ann")
    feed.extend(script.log)
    items = feed.extend(script.do("gm", BLIND_CHECK))
    assert items[0].line.text == f"#1 {BLIND}"
    assert all(item.line.hidden for item in items)
    for item in items:
        assert item.roll == {
            "session_id": script.session_id,
            "roll_id": 1,
            "roller": "gm",
            "mode": "blind",
            "blind": True,
            "status": "hidden",
            "text": BLIND,
        }
    shown = repr(items)
    assert "goblin" not in shown and "sneaks past" not in shown and "17" not in shown


def test_the_gm_sees_the_blind_roll_in_full() -> None:
    script = Script.table("ann")
    feed = Feed("gm")
    feed.extend(script.log)
    items = feed.extend(script.do("gm", BLIND_CHECK))
    assert items[0].roll is not None and items[0].roll["for"] == "goblin"
    assert not any(item.line.hidden for item in items)


def test_the_reveal_carries_the_revealed_roll_to_the_player() -> None:
    script = Script.table("ann")
    feed = Feed("ann")
    feed.extend(script.log)
    feed.extend(script.do("gm", BLIND_CHECK))
    (revealed,) = feed.extend(script.do("gm", cmd.RevealRoll(1)))
    assert revealed.event == "RollRevealed"
    assert revealed.line.text == "#1 blind roll revealed by gm" and not revealed.line.hidden
    assert revealed.roll == roll_view(script.state, script.state.rolls[1], "gm")
    assert revealed.roll is not None and revealed.roll["label"] == "sneaks past"


def test_the_end_feeds_each_self_roll_it_shows_as_a_reveal_with_the_roll_in_full() -> None:
    script = Script.table("ann", "bob")
    own = cmd.RequestRoll(RollKind.EFFECT, "1d6", mode=RollMode.SELF, label="omen", faces=(4,))
    script.do("ann", own)
    feeds = {viewer: Feed(viewer) for viewer in ("ann", "bob", "gm")}
    for feed in feeds.values():
        feed.extend(script.log)
    ended = script.do("gm", cmd.EndSession(SEED))
    for viewer in ("bob", "gm"):
        items = feeds[viewer].extend(ended)
        assert [i.event for i in items][-2:] == ["SessionEnded", "RollRevealed"], viewer
        shown = items[-1]
        assert shown.version == items[-2].version and shown.line.roll_id == 1
        assert shown.roll is not None and shown.roll["label"] == "omen", viewer
        assert shown.line.text == "#1 self roll shown at the end of the session"
    # ann saw her roll all along: nothing new to show her.
    assert [i.event for i in feeds["ann"].extend(ended)][-1] == "SessionEnded"
