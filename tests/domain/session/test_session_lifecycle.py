"""Starting, joining, seeds, ending, disputes, and replay discipline."""

from __future__ import annotations

import hashlib

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import (
    CommandRefusedError,
    CorruptLogError,
    PermissionDeniedError,
    RollError,
)
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.state import replay
from tests.domain.session.harness import Table, event_as


def test_the_creator_is_gm_and_the_first_seed_is_committed() -> None:
    table = Table(players=())
    assert [type(e).__name__ for e in table.events] == [
        "SessionStarted",
        "PlayerJoined",
        "SeedCommitted",
    ]
    assert table.state.is_gm("gm") and table.state.epoch.number == 1


def test_adding_someone_else_or_a_co_gm_is_the_gms() -> None:
    table = Table()
    error = table.refused("ann", cmd.JoinSession("carl"))
    assert isinstance(error, PermissionDeniedError)
    assert isinstance(table.refused("ann", cmd.JoinSession("ann", as_gm=True)), CommandRefusedError)
    table.run("gm", cmd.JoinSession("ann", as_gm=True))
    assert table.state.is_gm("ann")
    assert isinstance(table.refused("bob", cmd.JoinSession("bob")), CommandRefusedError)


def test_revealing_a_seed_publishes_it_and_opens_the_next_epoch() -> None:
    table = Table()
    events = table.run("gm", cmd.RevealSeed(table.seed, "d" * 64))
    assert isinstance(events[0], ev.SeedRevealed) and events[0].seed == table.seed.hex()
    assert table.state.epoch.number == 2 and table.state.epochs[0].seed == table.seed.hex()


def test_a_seed_that_does_not_match_its_commitment_is_refused() -> None:
    table = Table()
    error = table.refused("gm", cmd.RevealSeed(b"another seed", "d" * 64))
    assert isinstance(error, CorruptLogError)


def test_players_cannot_reveal_seeds_or_end_the_session() -> None:
    table = Table()
    assert isinstance(
        table.refused("ann", cmd.RevealSeed(table.seed, "d" * 64)), PermissionDeniedError
    )
    assert isinstance(table.refused("ann", cmd.EndSession(table.seed)), PermissionDeniedError)


def test_ending_resolves_waiting_rolls_and_reveals_the_seed() -> None:
    table = Table()
    table.run("bob", cmd.RequestRoll(RollKind.DAMAGE, "2d6", rerolls=1), faces=[2, 3])
    events = table.run("gm", cmd.EndSession(table.seed))
    assert [type(e).__name__ for e in events] == [
        "RollAccepted",
        "RollResolved",
        "SeedRevealed",
        "SessionEnded",
    ]
    assert table.state.ended


def test_a_dispute_is_opened_by_a_member_and_ruled_on_by_the_gm() -> None:
    table = Table()
    table.run("ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10)), [3])
    table.run("bob", cmd.OpenDispute(1, "the die fell off the table"))
    assert isinstance(table.refused("ann", cmd.OpenDispute(1, "again")), RollError)
    assert isinstance(
        table.refused("bob", cmd.ResolveDispute(1, cmd.Ruling.VOIDED)), PermissionDeniedError
    )
    table.run("gm", cmd.ResolveDispute(1, cmd.Ruling.VOIDED, "reroll it"))
    assert table.state.rolls[1].voided


def test_a_voided_roll_can_be_rolled_again_with_a_reference() -> None:
    table = Table()
    table.run("ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10)), [3])
    error = table.refused(
        "ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10), replaces=1)
    )
    assert isinstance(error, RollError) and "not voided" in str(error)
    table.run("bob", cmd.OpenDispute(1, "cocked die"))
    table.run("gm", cmd.ResolveDispute(1, cmd.Ruling.VOIDED))
    events = table.run(
        "ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10), replaces=1), [15]
    )
    assert event_as(ev.RollRequested, events[0]).replaces == 1


def test_replay_rebuilds_the_same_state_and_rejects_a_gap_in_versions() -> None:
    table = Table()
    table.run("ann", cmd.RequestRoll(RollKind.CHECK, "1d20+1", target=Target(10)), [9])
    rebuilt = replay(enumerate(table.events, start=1))
    assert rebuilt.rolls[1].resolution == table.state.rolls[1].resolution
    assert rebuilt.version == table.state.version
    with pytest.raises(CorruptLogError, match="does not follow"):
        replay([(1, table.events[0]), (3, table.events[1])])


def test_commitment_is_the_sha256_of_the_seed() -> None:
    table = Table()
    assert table.state.epoch.commitment == hashlib.sha256(table.seed).hexdigest()
