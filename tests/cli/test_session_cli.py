"""``diceledger session start | join | list | show | end`` as a GM and players use them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from click.testing import CliRunner

from diceledger.cli.main import cli
from diceledger.infra.ledger.signing import open_keyring
from tests.cli.conftest import Ledger


def test_start_makes_the_starter_gm_and_commits_to_a_seed(ledger: Ledger) -> None:
    out = ledger.ok("gm", "session", "start", "Tomb of Ash")
    session_id = out.split()[1]
    assert session_id.startswith("tomb-of-ash-")
    assert "(GM gm)" in out
    assert ledger.event_types(session_id) == ["SessionStarted", "PlayerJoined", "SeedCommitted"]
    shown = ledger.data("gm", "session", "show", session_id)
    assert shown["members"] == [{"name": "gm", "role": "gm", "client_seed": ""}]
    (epoch,) = shown["epochs"]
    assert epoch["seed"] is None
    assert epoch["commitment"] in out


def test_start_json_gives_the_id_title_gm_and_commitment(ledger: Ledger) -> None:
    started = ledger.data("gm", "session", "start", "Night Market")
    assert started["title"] == "Night Market"
    assert started["gm"] == "gm"
    assert len(started["commitment"]) == 64
    int(started["commitment"], 16)


def test_json_is_accepted_before_and_after_the_command(ledger: Ledger, table: str) -> None:
    before = ledger.ok("gm", "--json", "session", "show", table)
    after = ledger.ok("gm", "session", "show", table, "--json")
    assert json.loads(before) == json.loads(after)
    assert json.loads(before)["session_id"] == table


def test_player_joins_with_a_client_seed(ledger: Ledger, table: str) -> None:
    members = ledger.data("bob", "session", "show", table)["members"]
    assert members == [
        {"name": "gm", "role": "gm", "client_seed": ""},
        {"name": "ann", "role": "player", "client_seed": "ann's lucky words"},
        {"name": "bob", "role": "player", "client_seed": ""},
    ]


def test_join_answers_with_the_members_role(ledger: Ledger, table: str) -> None:
    assert ledger.ok("cat", "session", "join", table) == f"cat joined {table} as player\n"
    joined = ledger.data("dan", "session", "join", table)
    assert joined.pop("checkpoint").startswith(f"{open_keyring().current().name}/{table}\n")
    assert joined == {"session_id": table, "name": "dan", "role": "player"}


def test_gm_adds_a_player_and_a_co_gm_who_may_then_end_the_session(
    ledger: Ledger, table: str
) -> None:
    ledger.ok("gm", "session", "join", table, "--name", "cat")
    added = ledger.data("gm", "session", "join", table, "--name", "dee", "--gm")
    assert added["role"] == "gm"
    roles = {m["name"]: m["role"] for m in ledger.data("gm", "session", "show", table)["members"]}
    assert roles["cat"] == "player" and roles["dee"] == "gm"
    assert ledger.data("dee", "session", "end", table)["ended"] is True


def test_gm_promotes_a_player_to_co_gm_who_keeps_her_client_seed(
    ledger: Ledger, table: str
) -> None:
    assert ledger.data("gm", "session", "join", table, "--name", "ann", "--gm")["role"] == "gm"
    ann = ledger.data("ann", "session", "show", table)["members"][1]
    assert ann == {"name": "ann", "role": "gm", "client_seed": "ann's lucky words"}
    ledger.ok("ann", "seed", "reveal", table)


def test_player_cannot_add_someone_else(ledger: Ledger, table: str) -> None:
    message = ledger.refused("ann", "session", "join", table, "--name", "eve")
    assert message == "only a GM may add someone else or a co-GM"


def test_player_cannot_make_themself_a_co_gm(ledger: Ledger, table: str) -> None:
    assert "only a GM" in ledger.refused("eve", "session", "join", table, "--gm")
    assert "only a GM" in ledger.refused("ann", "session", "join", table, "--gm")


def test_joining_twice_is_refused(ledger: Ledger, table: str) -> None:
    assert "ann is already in session" in ledger.refused("ann", "session", "join", table)


def test_unknown_session_is_refused_by_every_command(ledger: Ledger, table: str) -> None:
    for args in (
        ("session", "join", "no-such"),
        ("session", "show", "no-such"),
        ("session", "end", "no-such"),
        ("roll", "no-such", "1d6"),
        ("check", "no-such", "1d20", "--target", "10"),
        ("accept", "no-such", "1"),
        ("seed", "reveal", "no-such"),
    ):
        assert ledger.refused("gm", *args).startswith("unknown session 'no-such'")


def test_list_shows_each_session_with_its_counts(ledger: Ledger, table: str) -> None:
    other = ledger.data("bob", "session", "start", "Second Table")["session_id"]
    ledger.ok("ann", "roll", table, "1d6", "--faces", "3")
    rows = ledger.data("ann", "session", "list")
    assert rows == [
        {
            "session_id": table,
            "title": "Tomb of Ash",
            "gm": "gm",
            "members": 3,
            "rolls": 1,
            "ended": False,
        },
        {
            "session_id": other,
            "title": "Second Table",
            "gm": "bob",
            "members": 1,
            "rolls": 0,
            "ended": False,
        },
    ]
    lines = ledger.ok("ann", "session", "list").splitlines()
    assert lines == [
        f"{table}  Tomb of Ash  GM gm  3 members, 1 roll, open",
        f"{other}  Second Table  GM bob  1 member, 0 rolls, open",
    ]


def test_list_of_an_empty_store_says_how_to_start(ledger: Ledger) -> None:
    assert "session start TITLE" in ledger.ok("ann", "session", "list")
    assert ledger.data("ann", "session", "list") == []


def test_show_lists_members_epochs_and_rolls(ledger: Ledger, table: str) -> None:
    ledger.ok("ann", "roll", table, "1d6+1", "--faces", "4", "--label", "torch")
    lines = ledger.ok("bob", "session", "show", table).splitlines()
    assert lines[0] == f"{table} 'Tomb of Ash' (open); GM gm"
    assert lines[1] == "members: gm (gm), ann (player), bob (player)"
    assert lines[2].startswith("epoch 1: commitment ") and "seed not revealed" in lines[2]
    assert lines[3] == "#1 ann effect (torch): 1d6 (4) + 1 = 5"


def test_player_cannot_end_the_session(ledger: Ledger, table: str) -> None:
    assert ledger.refused("ann", "session", "end", table) == "only a GM may end the session"


def test_outsider_cannot_end_the_session(ledger: Ledger, table: str) -> None:
    message = ledger.refused("eve", "session", "end", table)
    assert message.startswith(f"eve is not in session '{table}'")


def test_ending_reveals_the_seed_that_matches_the_commitment(ledger: Ledger, table: str) -> None:
    commitment = ledger.data("gm", "session", "show", table)["epochs"][0]["commitment"]
    ended = ledger.data("gm", "session", "end", table)
    assert ended["epoch"] == 1
    assert hashlib.sha256(bytes.fromhex(ended["seed"])).hexdigest() == commitment
    shown = ledger.data("ann", "session", "show", table)
    assert shown["ended"] is True
    assert shown["epochs"][0]["seed"] == ended["seed"]
    assert ledger.event_types(table)[-2:] == ["SeedRevealed", "SessionEnded"]


def test_ending_resolves_a_roll_still_waiting_for_rerolls(ledger: Ledger, table: str) -> None:
    ledger.ok("bob", "check", table, "1d20", "--target", "15", "--reroll", "1", "--faces", "4")
    ledger.ok("gm", "session", "end", table)
    (roll,) = ledger.data("bob", "session", "show", table)["rolls"]
    assert (roll["status"], roll["total"], roll["success"]) == ("resolved", 4, False)


def test_an_ended_session_refuses_rolls_joins_and_a_second_end(ledger: Ledger, table: str) -> None:
    ledger.ok("gm", "session", "end", table)
    ended = f"session '{table}' has ended"
    assert ledger.refused("ann", "roll", table, "1d6") == ended
    assert ledger.refused("cat", "session", "join", table) == ended
    assert ledger.refused("gm", "session", "end", table) == ended


def test_a_blank_title_is_refused(ledger: Ledger) -> None:
    assert "title" in ledger.refused("gm", "session", "start", "   ")


def test_a_blank_name_can_neither_join_nor_start_a_session(ledger: Ledger, table: str) -> None:
    assert "name" in ledger.refused("", "session", "join", table)
    assert "name" in ledger.refused("  ", "session", "join", table)
    assert "name" in ledger.refused("gm", "session", "join", table, "--name", " ")
    assert "name" in ledger.refused(" ", "session", "start", "Nameless GM")


def test_the_actor_comes_from_diceledger_user_and_the_database_from_db(
    ledger: Ledger, table: str
) -> None:
    runner = CliRunner(env={"DICELEDGER_DB": None, "DICELEDGER_USER": "bob", "NO_COLOR": "1"})
    result = runner.invoke(cli, ["--db", ledger.url, "--json", "roll", table, "1d4"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["roller"] == "bob"
    assert ledger.state(table).rolls[1].request.roller == "bob"


def test_as_overrides_diceledger_user(ledger: Ledger, table: str) -> None:
    runner = CliRunner(env={"DICELEDGER_DB": ledger.url, "DICELEDGER_USER": "bob"})
    result = runner.invoke(cli, ["--as", "ann", "--json", "roll", table, "1d4"])
    assert json.loads(result.stdout)["roller"] == "ann"


def test_an_unusable_database_is_one_line_and_exit_1(ledger: Ledger, tmp_path: Path) -> None:
    runner = CliRunner(env={"DICELEDGER_DB": f"sqlite:///{tmp_path}/missing/dir/x.sqlite"})
    result = runner.invoke(cli, ["--as", "gm", "session", "list"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert (
        result.stderr.startswith("Error: cannot use the database")
        and result.stderr.count("\n") == 1
    )
