"""The command line against hostile values (issue 19): clean refusals, escaped text.

Numbers are ASCII digits; an allowance past any roll is a rule, not an internal error; a
roll rolls dice; text typed by one person never moves another's cursor, clears a screen
or prints a line of its own; disputes stay open after the end for the days the GM gives.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time

from diceledger.domain.session import decide_rolls, decide_session
from tests.cli.conftest import Ledger

ARABIC_INDIC_THREE = "\u0663"


@pytest.mark.parametrize(
    "args",
    [
        ("roll", "{s}", "1d6", "--faces", ARABIC_INDIC_THREE),
        ("roll", "{s}", "2d6", "--faces", f"1,{ARABIC_INDIC_THREE}"),
        ("check", "{s}", "1d20", "--target", ARABIC_INDIC_THREE),
        ("check", "{s}", "1d20", "--dc", f"{ARABIC_INDIC_THREE}:WIS"),
        ("check", "{s}", "1d20", "--target", "10", "--adv", ARABIC_INDIC_THREE),
        ("roll", "{s}", "1d6", "--reroll", "\u0967"),  # Devanagari one
        ("reroll", "{s}", "\u0661", "--die", "0"),
        ("replay", "{s}", "--until-position", "\u0661"),
    ],
    ids=["faces", "faces list", "target", "dc", "adv", "reroll", "roll id", "position"],
)
def test_numbers_in_other_scripts_are_not_numbers_here(
    ledger: Ledger, table: str, args: tuple[str, ...]
) -> None:
    error = ledger.misused("ann", *(a.format(s=table) for a in args))
    assert "Invalid value" in error and ("whole number" in error or "digits 0-9" in error)


def test_r11_an_allowance_of_ten_to_the_thirty_is_refused_as_a_rule(
    ledger: Ledger, table: str
) -> None:
    error = ledger.refused("ann", "roll", table, "1d6", "--reroll", str(10**30))
    assert error == f"a reroll allowance is 0 to 1000, not {10**30}"


@pytest.mark.parametrize("expression", ["5", "3+4", "10/2"])
def test_r2_a_roll_of_a_constant_is_refused(ledger: Ledger, table: str, expression: str) -> None:
    error = ledger.refused("ann", "roll", table, expression)
    assert "rolls no dice" in error


def test_replay_until_a_roll_request_shows_the_roll_as_not_yet_rolled(
    ledger: Ledger, table: str
) -> None:
    ledger.ok("ann", "roll", table, "2d6", "--faces", "3,4")
    request = next(r for r in ledger.events(table) if r.event_type == "RollRequested")
    out = ledger.ok("ann", "replay", table, "--until-position", str(request.position))
    assert "open rolls: #1 ann effect (dice not yet rolled)" in out
    lines = ledger.ok("ann", "replay", table, "--until-position", str(request.position), "--json")
    as_of = json.loads(lines.splitlines()[-1])["as_of"]
    assert as_of["open_rolls"][0]["total_so_far"] is None


def test_a_name_is_joined_as_the_session_keeps_it(ledger: Ledger, table: str) -> None:
    assert ledger.ok("mira ", "session", "join", table) == f"mira joined {table} as player\n"
    assert "looks like 'mira'" in ledger.refused("Mira", "session", "join", table)
    assert "U+200B" in ledger.refused("mi\u200bra", "session", "join", table)


def test_every_hostile_text_field_is_refused_on_the_command_line(
    ledger: Ledger, table: str
) -> None:
    clear = "\x1b[2J\x1b[H"
    for args in [
        ("roll", table, "1d6", "--label", clear),
        ("roll", table, "1d6", "--salt", "x\ny"),
        ("roll", table, "1d6", "--action", clear),
        ("roll", table, "1d6", "--eased", f"1:{clear}"),
        ("save", table, "1d20", "--target", "9", "--against", "a\rb"),
    ]:
        error = ledger.refused("ann", *args)
        assert "\x1b" not in error and "may not hold the character" in error, args
    joined = ledger.refused("carl", "session", "join", table, "--client-seed", clear)
    assert joined == "a client seed may not hold the character U+001B"
    assert "U+000A" in ledger.refused("ann", "roll", table, "1d6", "--salt", "x\ny")
    assert "at most 200" in ledger.refused("ann", "roll", table, "1d6", "--salt", "s" * 130_000)
    assert "at most 100" in ledger.refused("ann", "roll", table, "1d6", "--action", "a" * 120_000)
    against = ("save", table, "1d20", "--target", "9", "--against", "x" * 100_000)
    assert "at most 200" in ledger.refused("ann", *against)


def test_an_error_quoting_what_was_typed_is_escaped_and_kept_short(
    ledger: Ledger, table: str
) -> None:
    error = ledger.refused("ann", "session", "show", "no-such\x1b[2J")
    assert error == "unknown session 'no-such\\x1b[2J'; `diceledger session list` shows yours"
    assert "\\x1b" in ledger.misused("ann", "roll", table, "1d6", "--faces", "\x1b")
    long = ledger.refused("x" * 100_000, "roll", table, "1d6")
    assert len(long) < 1100 and long.endswith(" more characters)")


def test_text_written_before_the_checks_is_escaped_on_every_output(
    ledger: Ledger, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A store written by a release without the text checks: the checks switched off.
    monkeypatch.setattr(decide_rolls, "check_texts", lambda command, sides: None)
    monkeypatch.setattr(decide_session, "check_text", lambda *args, **kwargs: None)
    monkeypatch.setattr(decide_session, "check_optional", lambda *args, **kwargs: None)
    evil = "\x1b]0;pwned\x07\x1b[2J\nError: fake line"
    ledger.ok("ann", "roll", table, "1d6", "--faces", "3", "--label", evil, "--eased", f"1:{evil}")
    ledger.ok("bob", "dispute", "open", table, "1", "--reason", evil)
    ledger.ok("gm", "dispute", "resolve", table, "1", "--uphold", "--note", evil)
    monkeypatch.undo()
    outputs = [
        ledger.ok("ann", "session", "show", table),
        ledger.ok("gm", "replay", table),
        ledger.ok("gm", "replay", table, "--until-position", "999"),
        ledger.ok("gm", "dispute", "review", table, "1"),
        ledger.ok("ann", "stats"),
    ]
    for out in outputs:
        assert "\x1b" not in out and "\x07" not in out
        assert not any(line.startswith("Error: fake") for line in out.splitlines())
    assert "\\x1b]0;pwned\\x07" in outputs[0] and "\\x0aError: fake line" in outputs[1]
    assert "\\x1b[2J" in outputs[3]


def test_an_open_session_is_exported_with_a_warning_that_its_seed_stays(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    path = tmp_path / "open.jsonl"
    result = ledger.run("gm", "export", table, "-o", str(path))
    assert result.exit_code == 0 and path.exists()
    assert result.stderr.startswith(f"warning: {table} is still open and its seed stays")
    ledger.ok("gm", "session", "end", table)
    closed = ledger.run("gm", "export", table, "-o", str(path))
    assert closed.exit_code == 0 and closed.stderr == ""


def test_disputes_stay_open_for_the_days_the_gm_gives_at_the_end(
    ledger: Ledger, table: str
) -> None:
    ended = datetime(2026, 11, 29, 23, 0, tzinfo=UTC)
    with freeze_time(ended):
        ledger.ok("ann", "check", table, "1d20", "--target", "12", "--faces", "4")
        out = ledger.data("gm", "session", "end", table, "--dispute-days", "2")
        assert out["disputes_until"] == "2026-12-01T23:00:00.000000Z"
    with freeze_time(ended + timedelta(days=1)):
        ledger.ok("ann", "dispute", "open", table, "1", "--reason", "the seed says 19")
        ledger.ok("gm", "dispute", "resolve", table, "1", "--void")
        assert "has ended" in ledger.refused("ann", "check", table, "1d20", "--target", "12")
    with freeze_time(ended + timedelta(days=2, minutes=1)):
        error = ledger.refused("bob", "dispute", "open", table, "1", "--reason", "late")
        assert error.endswith("its dispute window closed at 2026-12-01T23:00:00.000000Z")
    assert "every outcome hold" in ledger.ok("ann", "verify", table)
