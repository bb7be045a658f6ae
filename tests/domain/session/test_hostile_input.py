"""What the aggregate refuses from a hostile player or a careless GM (issue 19).

Text that would reach other people's terminals carries no control characters, every text
field has a limit, member names are normalised and may not pass for another member, a
roll rolls at least one die, a voided roll is rolled again once and as it was asked, and
disputes stay open for a window after the end.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import (
    InvalidInputError,
    PermissionDeniedError,
    RerollError,
    RollError,
)
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.state import SessionState
from diceledger.domain.session.text import (
    MAX_ACTION_ID,
    MAX_AGAINST,
    MAX_LABEL,
    MAX_SALT,
    MAX_TEXT,
    normalize_name,
)
from tests.domain.session.harness import Table

HOSTILE = ["\x1b[2J\x1b[H", "two\nlines", "bell\x07", "nul\x00", "\u202etxet", "cr\rover"]
Refusal = tuple[str, Callable[[str], cmd.Command]]

# Each field a person types, as the command that carries it (acted by the GM, who may
# do everything, so only the text can be what is refused).
FIELDS: dict[str, Callable[[str], cmd.Command]] = {
    "label": lambda t: cmd.RequestRoll(RollKind.EFFECT, "1d6", label=t),
    "salt": lambda t: cmd.RequestRoll(RollKind.EFFECT, "1d6", salt=t),
    "action id": lambda t: cmd.RequestRoll(RollKind.EFFECT, "1d6", action_id=t),
    "save's origin": lambda t: cmd.RequestRoll(RollKind.SAVE, "1d20", target=Target(10), against=t),
    "DC's origin": lambda t: cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target.dc(2, t)),
    "source label": lambda t: cmd.RequestRoll(RollKind.EFFECT, "1d6", eased=(ev.Amount(1, t),)),
    "NPC name": lambda t: cmd.RequestRoll(RollKind.EFFECT, "1d6", on_behalf_of=t),
    "opposed NPC": lambda t: cmd.RequestOpposed(
        ev.CheckSide("gm", "1d20"), ev.CheckSide(t, "1d20")
    ),
    "member name": lambda t: cmd.JoinSession(t),
    "client seed": lambda t: cmd.JoinSession("carl", client_seed=t),
}
# Entropy chosen after the commitment is a player's own (no grinding): these two are typed
# by the player they belong to.
ACTORS = {"salt": "ann", "client seed": "carl"}


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("text", HOSTILE, ids=repr)
def test_control_characters_are_refused_in_every_text_field(field: str, text: str) -> None:
    table = Table()
    error = table.refused(ACTORS.get(field, "gm"), FIELDS[field](text))
    assert isinstance(error, InvalidInputError), error
    assert "may not hold the character" in str(error)


@pytest.mark.parametrize("text", HOSTILE, ids=repr)
def test_control_characters_are_refused_in_a_title_a_reason_and_a_note(text: str) -> None:
    start = cmd.StartSession("s1", f"Tomb {text}", "c" * 64)
    with pytest.raises(InvalidInputError):
        decide(SessionState(), start, Context("gm"))
    table = Table()
    table.run("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6"), [3])
    assert isinstance(table.refused("bob", cmd.OpenDispute(1, text)), InvalidInputError)
    table.run("bob", cmd.OpenDispute(1, "too low"))
    error = table.refused("gm", cmd.ResolveDispute(1, cmd.Ruling.UPHELD, note=text))
    assert isinstance(error, InvalidInputError)


@pytest.mark.parametrize(
    ("field", "limit"),
    [
        ("label", MAX_LABEL),
        ("salt", MAX_SALT),
        ("action id", MAX_ACTION_ID),
        ("save's origin", MAX_AGAINST),
        ("DC's origin", MAX_LABEL),
        ("source label", MAX_LABEL),
        ("NPC name", MAX_TEXT),
        ("member name", MAX_TEXT),
        ("client seed", MAX_TEXT),
    ],
)
def test_every_text_field_has_a_limit(field: str, limit: int) -> None:
    Table().run(ACTORS.get(field, "gm"), FIELDS[field]("x" * limit))
    error = Table().refused(ACTORS.get(field, "gm"), FIELDS[field]("y" * (limit + 1)))
    assert f"at most {limit}" in str(error) or f"1 to {limit}" in str(error)


def test_a_name_is_kept_normalised_trimmed_and_with_single_spaces() -> None:
    assert normalize_name("  ｍｉｒａ  ") == "mira"  # NFKC folds fullwidth letters
    assert normalize_name("mira\u00a0 de\u3000 voss ") == "mira de voss"
    table = Table(players=())
    (joined,) = table.run("gm", cmd.JoinSession("mira "))
    assert isinstance(joined, ev.PlayerJoined) and joined.name == "mira"
    error = table.refused("gm", cmd.JoinSession("ｍｉｒａ"))
    assert "already in session" in str(error)


@pytest.mark.parametrize("name", ["mi\u200bra", "mira\u2060", "\u3164", "mi\u200dra", "\ufeffmira"])
def test_invisible_characters_are_refused_in_a_name(name: str) -> None:
    table = Table(players=())
    error = table.refused("gm", cmd.JoinSession(name))
    assert isinstance(error, InvalidInputError)


def test_a_name_that_looks_like_a_member_is_refused_by_the_lookalike_judge() -> None:
    state = Table(players=("mira",)).state

    def judge(name: str, other: str) -> bool:
        return name.replace("\u0430", "a") == other  # Cyrillic a passes for Latin a

    with pytest.raises(InvalidInputError, match="looks like 'mira'"):
        decide(state, cmd.JoinSession("mir\u0430"), Context("mir\u0430", lookalike=judge))
    with pytest.raises(InvalidInputError, match="looks like 'mira'"):
        decide(state, cmd.JoinSession("MIRA"), Context("MIRA"))  # case alone, by default
    joined = decide(state, cmd.JoinSession("mirabel"), Context("mirabel", lookalike=judge))
    assert isinstance(joined[0], ev.PlayerJoined)


@pytest.mark.parametrize("expression", ["5", "5+3", "(2*3)/2"])
def test_r2_a_roll_of_constants_only_is_refused_since_it_rolls_no_dice(expression: str) -> None:
    table = Table()
    error = table.refused("ann", cmd.RequestRoll(RollKind.EFFECT, expression))
    assert isinstance(error, RollError) and "at least one die" in str(error)


@pytest.mark.parametrize("allowance", [10**30, 2**53, 1001, -1])
def test_r11_a_reroll_allowance_out_of_bounds_is_refused_as_a_rule(allowance: int) -> None:
    table = Table()
    error = table.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6", rerolls=allowance))
    assert isinstance(error, RerollError) and "0 to 1000" in str(error)


def void_roll_one(table: Table) -> None:
    table.run("ann", cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12)), [3])
    table.run("ann", cmd.OpenDispute(1, "cocked die"))
    table.run("gm", cmd.ResolveDispute(1, cmd.Ruling.VOIDED))


def test_a_voided_roll_is_rolled_again_once_only() -> None:
    table = Table()
    void_roll_one(table)
    table.run("ann", cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12), replaces=1), [15])
    error = table.refused(
        "ann", cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12), replaces=1)
    )
    assert isinstance(error, RollError) and "already rolled again, as roll 2" in str(error)


@pytest.mark.parametrize(
    "other",
    [
        cmd.RequestRoll(RollKind.CHECK, "1d20+9", target=Target(12), replaces=1),
        cmd.RequestRoll(RollKind.SAVE, "1d20+2", target=Target(12), against="gas", replaces=1),
        cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(2), replaces=1),
        cmd.RequestRoll(RollKind.EFFECT, "1d20+2", replaces=1),
    ],
    ids=["another expression", "another kind", "another target", "a plain roll"],
)
def test_a_voided_roll_is_rolled_again_only_as_the_same_request(other: cmd.RequestRoll) -> None:
    table = Table()
    void_roll_one(table)
    error = table.refused("ann", other)
    assert isinstance(error, RollError) and "same request" in str(error)


ENDED_AT = datetime(2026, 11, 29, 22, 0, tzinfo=UTC)


def ended_table(window: timedelta) -> Table:
    table = Table()
    table.run("ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10)), [3])
    table.now = ENDED_AT
    table.run("gm", cmd.EndSession(table.seed, int(window.total_seconds())))
    return table


def test_disputes_and_rulings_are_taken_after_the_end_during_the_window() -> None:
    table = ended_table(timedelta(days=2))
    assert table.state.disputes_until == ENDED_AT + timedelta(days=2)
    table.now = ENDED_AT + timedelta(hours=30)
    table.run("ann", cmd.OpenDispute(1, "the seed gives another face"))
    assert isinstance(
        table.refused("ann", cmd.ResolveDispute(1, cmd.Ruling.VOIDED)), PermissionDeniedError
    )
    table.run("gm", cmd.ResolveDispute(1, cmd.Ruling.UPHELD))
    assert table.state.rolls[1].ruling is not None


def test_after_the_window_no_dispute_is_taken() -> None:
    table = ended_table(timedelta(days=2))
    table.now = ENDED_AT + timedelta(days=2, seconds=1)
    error = table.refused("ann", cmd.OpenDispute(1, "too late"))
    assert "dispute window closed at 2026-12-01T22:00:00.000000Z" in str(error)
    table.now = None  # a decision that is told no time cannot be inside any window
    assert "window closed" in str(table.refused("ann", cmd.OpenDispute(1, "no clock")))


def test_rolling_stays_closed_after_the_end_even_inside_the_window() -> None:
    table = ended_table(timedelta(days=2))
    table.now = ENDED_AT + timedelta(minutes=1)
    assert "has ended" in str(table.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "1d6")))


@pytest.mark.parametrize("seconds", [-1, 366 * 86400])
def test_a_dispute_window_is_zero_to_a_year(seconds: int) -> None:
    table = Table()
    table.now = ENDED_AT
    error = table.refused("gm", cmd.EndSession(table.seed, seconds))
    assert isinstance(error, InvalidInputError)


def test_an_end_without_a_time_takes_no_disputes_after_it() -> None:
    table = Table()
    table.run("ann", cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(10)), [3])
    (*_, ended) = table.run("gm", cmd.EndSession(table.seed))
    assert ended == ev.SessionEnded("gm", None, 0)
    table.now = ENDED_AT
    assert "no disputes after its end" in str(table.refused("ann", cmd.OpenDispute(1, "late")))


def test_a_session_id_with_control_characters_is_refused() -> None:
    commitment = hashlib.sha256(b"seed").hexdigest()
    with pytest.raises(InvalidInputError):
        decide(SessionState(), cmd.StartSession("s\x1b1", "Tomb", commitment), Context("gm"))
