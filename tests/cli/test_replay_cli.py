"""``diceledger replay`` as players and the GM run it: lines, blind rolls, JSON, as-of."""

from __future__ import annotations

import json

from freezegun import freeze_time

from tests.cli.conftest import Ledger

JSON_KEYS = [
    "position",
    "version",
    "recorded_at",
    "actor",
    "event",
    "roll_id",
    "hidden",
    "text",
    "detail",
]


def play(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "check", table, "1d20+3", "--target", "12", "--faces", "15")
    ledger.ok("bob", "roll", table, "1d6+1", "--kind", "damage", "--faces", "6,6,3")
    ledger.ok(
        "gm", "check", table, "1d20", "--target", "11", "--blind", "--for", "bob", "--faces", "17"
    )


def test_replay_prints_each_event_with_its_dice_and_outcome(ledger: Ledger, table: str) -> None:
    play(ledger, table)
    out = ledger.ok("ann", "replay", table)
    assert "ann        #1 1d20 (15) + 3 = 18 vs 12: success (margin +6)" in out
    assert "#2 explosion: d6 6 -> d6 6 -> d4 3" in out
    assert "bob joined as player" in out


def test_r13_players_see_a_blind_roll_only_as_the_gm_rolling_blind(
    ledger: Ledger, table: str
) -> None:
    play(ledger, table)
    player = ledger.ok("bob", "replay", table)
    assert "#3 the GM rolled blind" in player
    assert "d20 17" not in player
    assert "#3 dice: d20 17" in ledger.ok("gm", "replay", table)


def test_json_lines_give_one_object_per_event_with_stable_keys(ledger: Ledger, table: str) -> None:
    play(ledger, table)
    lines = ledger.ok("bob", "replay", table, "--json").splitlines()
    assert len(lines) == len(ledger.events(table))
    objects = [json.loads(line) for line in lines]
    assert all(list(o) == JSON_KEYS for o in objects)
    blind = [o for o in objects if o["roll_id"] == 3]
    assert blind and all(o["hidden"] and o["detail"] == {"roll_id": 3} for o in blind)
    resolved = next(o for o in objects if o["event"] == "CheckResolved")
    assert resolved["detail"]["total"] == 18 and resolved["actor"] == "ann"


def test_until_position_shows_the_state_then(ledger: Ledger, table: str) -> None:
    ledger.ok(
        "ann",
        "roll",
        table,
        "2d6n",
        "--kind",
        "damage",
        "--reroll",
        "1",
        "--reroll-scope",
        "damage",
        "--faces",
        "1,4",
    )
    waiting = ledger.events(table)[-1].position
    ledger.ok("ann", "reroll", table, "1", "--die", "0", "--faces", "5")
    out = ledger.ok("gm", "replay", table, "--until-position", str(waiting))
    assert "#1 reroll:" not in out
    assert "open rolls: #1 ann damage (total so far 5)" in out
    assert "members: gm (gm), ann (player), bob (player)" in out
    full = ledger.ok("gm", "replay", table)
    assert "#1 reroll: d6 1 -> d6 5" in full


def test_at_a_time_stops_there_and_json_ends_with_the_state(ledger: Ledger) -> None:
    with freeze_time("2026-11-29 20:00:00") as clock:
        session = ledger.data("gm", "session", "start", "Crypt")["session_id"]
        clock.tick(60)
        ledger.ok("ann", "session", "join", session)
        clock.tick(60)  # 20:02
        ledger.ok("ann", "check", session, "1d20", "--target", "5", "--faces", "9")
    lines = ledger.ok(
        "ann", "replay", session, "--at", "2026-11-29T20:01:30Z", "--json"
    ).splitlines()
    *events, last = (json.loads(line) for line in lines)
    assert [e["event"] for e in events][-1] == "PlayerJoined"
    assert last["as_of"]["at"] == "2026-11-29T20:01:30.000000Z"
    assert last["as_of"]["totals"]["ann"]["rolls"] == 0
    later = json.loads(
        ledger.ok("ann", "replay", session, "--at", "2026-11-29T20:03:00", "--json").splitlines()[
            -1
        ]
    )
    assert later["as_of"]["totals"]["ann"] == {
        "rolls": 1,
        "checks_made": 1,
        "checks_won": 1,
        "sum_of_totals": 9,
    }


def test_an_unknown_session_or_a_bad_time_is_a_one_line_error(ledger: Ledger, table: str) -> None:
    assert "unknown session 'nope'" in ledger.refused("ann", "replay", "nope")
    assert "not an ISO 8601 time" in ledger.misused("ann", "replay", table, "--at", "yesterday")
