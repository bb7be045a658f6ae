"""The CLI as a client of a real `diceledger serve` on 127.0.0.1: join, roll, refuse, retry.

A player joins with the invite link the GM shared and rolls with `--server`; what they
see (text, --json, exit codes) is what the same commands print against a local store.
Dice are typed in (`--faces`), so every outcome is fixed.
"""

from __future__ import annotations

import json
import stat
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.served import Server, running_server
from tests.cli.conftest import Ledger
from tests.cli.remote_support import Table, Terminal, api, proxy_to

CHECK = ("1d20+5", "--target", "15", "--faces", "12")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with running_server(f"sqlite:///{tmp_path / 'served.sqlite'}", tmp_path) as served:
        yield served


def _shape(value: Any) -> Any:
    """Return a JSON value's shape: its keys, nested, and the type of each leaf."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return type(value).__name__


def test_a_player_joins_by_the_invite_link_and_rolls_as_locally(
    server: Server, tmp_path: Path, ledger: Ledger, table: str
) -> None:
    gm = Table.open(server.base_url)
    ann = Terminal(tmp_path / "ann")
    joined = ann.ok("join", gm.invite_link(), "--name", "ann")
    assert f"joined {gm.session_id} on {server.base_url} as ann" in joined
    # The token is kept for the user alone, and shown nowhere.
    assert stat.S_IMODE(ann.token_file.stat().st_mode) == 0o600
    (token,) = ann.tokens()
    assert token.startswith("dlt_")

    remote = ann.ok("--server", server.base_url, "check", gm.session_id, *CHECK)
    local = ledger.ok("ann", "check", table, *CHECK)
    assert remote == local == "#1 ann check: 1d20 (12) + 5 = 17 vs 15: success\n"

    shown = json.loads(
        ann.ok("--server", server.base_url, "check", gm.session_id, *CHECK, "--json")
    )
    kept = ledger.data("ann", "check", table, *CHECK)
    assert _shape(shown) == _shape(kept)
    assert (shown["roll_id"], shown["total"], shown["success"]) == (2, 17, True)
    # The GM sees the player's rolls on the server.
    assert [roll["roller"] for roll in gm.session()["rolls"]] == ["ann", "ann"]
    assert all(token not in output for output in ann.outputs)


def test_a_refusal_over_the_api_exits_as_it_does_locally(
    server: Server, tmp_path: Path, ledger: Ledger, table: str
) -> None:
    gm = Table.open(server.base_url)
    ann, bob = Terminal(tmp_path / "ann"), Terminal(tmp_path / "bob")
    ann.ok("join", gm.invite_link(), "--name", "ann")
    bob.ok("join", gm.invite_link(), "--name", "bob")
    waiting = ("check", "1d20+1", "--target", "12", "--reroll", "1", "--faces", "3")
    ann.ok("--server", server.base_url, *waiting[:1], gm.session_id, *waiting[1:])
    ledger.ok("ann", waiting[0], table, *waiting[1:])

    remote = bob.run("--server", server.base_url, "accept", gm.session_id, "1")
    local = ledger.run("bob", "accept", table, "1")
    assert (remote.exit_code, local.exit_code) == (1, 1)
    assert remote.stdout == local.stdout == ""
    assert remote.stderr.splitlines()[-1] == local.stderr.splitlines()[-1]
    assert len(gm.session()["rolls"]) == 1  # nothing rolled or accepted


def test_a_lost_answer_is_retried_with_the_same_key_and_rolls_once(
    server: Server, tmp_path: Path
) -> None:
    gm = Table.open(server.base_url)
    port = int(server.base_url.rsplit(":", 1)[1])
    with proxy_to(port) as proxy:
        ann = Terminal(tmp_path / "ann")
        ann.ok("join", gm.invite_link(proxy.url), "--name", "ann")
        proxy.planned[:] = ["lose", "busy"]  # the roll's answer lost, then a busy server
        before = len(proxy.seen)
        out = ann.ok("--server", proxy.url, "roll", gm.session_id, "2d6", "--json")
        # Three tries of the roll, then the checkpoint's checks (keys, proof) pass through.
        assert proxy.seen[before : before + 3] == ["lose", "busy", "pass"]
    rolled = json.loads(out)
    rolls = gm.session()["rolls"]
    assert [roll["roll_id"] for roll in rolls] == [rolled["roll_id"]] == [1]
    assert rolls[0]["total"] == rolled["total"]


def test_an_unreachable_server_is_one_line(tmp_path: Path) -> None:
    ann = Terminal(tmp_path / "ann")
    result = ann.run("join", "http://127.0.0.1:9/join/dli_nothing", "--name", "ann")
    assert result.exit_code == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: cannot reach http://127.0.0.1:9")


def test_logout_forgets_the_servers_tokens(server: Server, tmp_path: Path) -> None:
    gm = Table.open(server.base_url)
    ann = Terminal(tmp_path / "ann")
    ann.ok("join", gm.invite_link(), "--name", "ann")
    (token,) = ann.tokens()
    said = ann.ok("logout", server.base_url)
    assert (
        said == f"signed out and forgot the token of ann in {gm.session_id} on {server.base_url}\n"
    )
    assert ann.tokens() == []
    # The token itself no longer opens the session: logout signed the device out.
    with pytest.raises(urllib.error.HTTPError) as refused_token:
        api(server.base_url, "GET", f"/api/v1/sessions/{gm.session_id}", token=token)
    refused_token.value.close()
    assert refused_token.value.code == 401
    refused = ann.run("--server", server.base_url, "roll", gm.session_id, "1d6")
    assert refused.exit_code == 1
    assert "you hold no token for session" in refused.stderr
    assert gm.session()["rolls"] == []


def test_session_show_dispute_checkpoint_export_and_verify_over_the_api(
    server: Server, tmp_path: Path, ledger: Ledger, table: str
) -> None:
    gm = Table.open(server.base_url)
    ann = Terminal(tmp_path / "ann")
    ann.ok("join", gm.invite_link(), "--name", "ann")
    at = ("--server", server.base_url)
    sid = gm.session_id
    ann.ok(*at, "check", sid, *CHECK)
    ledger.ok("ann", "check", table, *CHECK)

    shown = ann.ok(*at, "session", "show", sid)
    assert shown.splitlines()[1] == "members: gm (gm), ann (player)"
    assert shown.splitlines()[-1] == "#1 ann check: 1d20 (12) + 5 = 17 vs 15: success"
    remote_view = json.loads(ann.ok(*at, "session", "show", sid, "--json"))
    assert remote_view == gm.session() | {"rolls": remote_view["rolls"]}
    assert _shape(remote_view["rolls"]) == _shape(
        ledger.data("ann", "session", "show", table)["rolls"]
    )

    disputed = json.loads(
        ann.ok(*at, "dispute", "open", sid, "1", "--reason", "cocked die", "--json")
    )
    assert (disputed["by"], disputed["dispute"]) == ("ann", "open")
    assert gm.session()["rolls"][0]["open_dispute"] is True

    kept = json.loads(ann.ok(*at, "checkpoint", sid, "--json"))
    exported = json.loads(ann.ok(*at, "export", sid, "-o", str(tmp_path / "t.jsonl"), "--json"))
    assert (
        exported["events"] == kept["size"] == len((tmp_path / "t.jsonl").read_text().splitlines())
    )
    assert exported["proof"] == str(tmp_path / "t.jsonl.proof.json")
    # The export verifies on its own, as a local one does.
    assert "verified: the chain" in ann.ok("verify", "--file", str(tmp_path / "t.jsonl"))
    # And verify with --server checks the server's log on this machine, with what it kept.
    report = json.loads(ann.ok(*at, "verify", sid, "--json"))
    assert report["ok"] is True


def test_a_command_not_yet_a_client_refuses_rather_than_read_a_local_store(
    server: Server, tmp_path: Path
) -> None:
    ann = Terminal(tmp_path / "ann")
    result = ann.run("--server", server.base_url, "session", "end", "some-session")
    assert result.exit_code == 2
    assert "does not work with --server yet" in result.stderr


def test_an_older_checkpoint_than_the_one_kept_is_reported(server: Server, tmp_path: Path) -> None:
    gm = Table.open(server.base_url)
    port = int(server.base_url.rsplit(":", 1)[1])
    with proxy_to(port) as proxy:
        ann = Terminal(tmp_path / "ann")
        ann.ok("join", gm.invite_link(proxy.url), "--name", "ann")
        at = ("--server", proxy.url)
        proxy.planned[:] = ["record"]  # the checkpoint of the log as it is now
        older = json.loads(ann.ok(*at, "checkpoint", gm.session_id, "--json"))
        ann.ok(*at, "roll", gm.session_id, "1d6", "--faces", "4")  # keeps a larger one
        proxy.planned[:] = ["stale"]  # then the server answers the older checkpoint
        result = ann.run(*at, "checkpoint", gm.session_id, "--json")
    assert json.loads(result.stdout)["size"] == older["size"]
    assert "WARNING: " in result.stderr
    assert "the log shrank from " in result.stderr
    assert f" to {older['size']} events" in result.stderr


def test_logout_from_a_server_gone_away_still_forgets_and_says_so(tmp_path: Path) -> None:
    ann = Terminal(tmp_path / "ann")
    folder = tmp_path / "gone"
    folder.mkdir()
    with running_server(f"sqlite:///{folder / 'gone.sqlite'}", folder) as server:
        gm = Table.open(server.base_url)
        ann.ok("join", gm.invite_link(), "--name", "ann")
    said = ann.ok("logout", server.base_url)
    assert said.startswith(f"forgot the token of ann in {gm.session_id} on {server.base_url}")
    assert "(not signed out there: cannot reach " in said
    assert ann.tokens() == []


def test_opposed_replay_receipt_and_session_list_over_the_api(
    server: Server, tmp_path: Path, ledger: Ledger, table: str
) -> None:
    gm = Table.open(server.base_url)
    ann, bob = Terminal(tmp_path / "ann"), Terminal(tmp_path / "bob")
    ann.ok("join", gm.invite_link(), "--name", "ann")
    bob.ok("join", gm.invite_link(), "--name", "bob")
    at, sid = ("--server", server.base_url), gm.session_id
    # ann types in her own die; bob's is each server's own, and never reaches her 39.
    contest = ("1d20+30", "--vs", "bob", "1d20", "--no-explode", "--faces", "9")
    remote = ann.ok(*at, "opposed", sid, *contest)
    here = ledger.ok("ann", "opposed", table, *contest)
    assert remote.splitlines()[0] == here.splitlines()[0] == "#1 ann opposed vs bob:"
    assert remote.splitlines()[-1] == here.splitlines()[-1] == "  ann wins"

    listed = json.loads(ann.ok(*at, "session", "list", "--json"))
    assert listed == [
        {
            "session_id": sid,
            "title": "Tomb of Ash",
            "gm": "gm",
            "members": 3,
            "rolls": 1,
            "ended": False,
        }
    ]

    lines = [json.loads(line) for line in ann.ok(*at, "replay", sid, "--json").splitlines()]
    local = [json.loads(line) for line in ledger.ok("ann", "replay", table, "--json").splitlines()]
    assert [line["event"] for line in lines] == [line["event"] for line in local]
    assert _shape(lines) == _shape(local)
    assert ann.ok(*at, "replay", sid).splitlines()[-1].endswith(lines[-1]["text"])

    receipt = tmp_path / "roll-1.receipt.json"
    ann.ok(*at, "receipt", sid, "1", "-o", str(receipt))
    # Checked with no server at all, against the key pinned when ann kept a checkpoint.
    assert "complete: every event of roll 1" in ann.ok("verify", "--receipt", str(receipt))


def test_a_join_whose_answer_was_lost_is_retried_into_the_same_member(
    server: Server, tmp_path: Path
) -> None:
    gm = Table.open(server.base_url)
    port = int(server.base_url.rsplit(":", 1)[1])
    with proxy_to(port) as proxy:
        ann = Terminal(tmp_path / "ann")
        proxy.planned[:] = ["lose"]  # the server made ann a member; the answer never came
        ann.ok("join", gm.invite_link(proxy.url), "--name", "ann")
        assert proxy.seen[:2] == ["lose", "pass"]
        ann.ok("--server", proxy.url, "roll", gm.session_id, "1d6", "--faces", "5")
    assert [m["name"] for m in gm.session()["members"]] == ["gm", "ann"]
    assert [r["roller"] for r in gm.session()["rolls"]] == ["ann"]


def test_stats_of_a_session_over_the_api_read_as_locally(
    server: Server, tmp_path: Path, ledger: Ledger, table: str
) -> None:
    gm = Table.open(server.base_url)
    ann = Terminal(tmp_path / "ann")
    ann.ok("join", gm.invite_link(), "--name", "ann")
    at, sid = ("--server", server.base_url), gm.session_id
    for faces in ("12", "3", "19"):
        ann.ok(*at, "check", sid, "1d20+5", "--target", "15", "--faces", faces)
        ledger.ok("ann", "check", table, "1d20+5", "--target", "15", "--faces", faces)
    mine = ("stats", "--session")
    remote_text = ann.ok(*at, *mine, sid, "--player", "ann")
    local_text = ledger.ok("ann", *mine, table, "--player", "ann")
    assert remote_text.replace(sid, "S") == local_text.replace(table, "S")
    assert "checks won 2/3" in remote_text
    remote_json = json.loads(ann.ok(*at, *mine, sid, "--json"))
    local_json = ledger.data("ann", *mine, table)
    assert _shape(remote_json) == _shape(local_json)
    remote_csv = ann.ok(*at, *mine, sid, "--format", "csv")
    assert remote_csv.replace(sid, "S") == ledger.ok(
        "ann", *mine, table, "--format", "csv"
    ).replace(table, "S")


def test_a_token_file_that_is_not_json_is_one_line_and_left_alone(tmp_path: Path) -> None:
    ann = Terminal(tmp_path / "ann")
    ann.token_file.parent.mkdir(parents=True)
    ann.token_file.write_text("{not json")
    result = ann.run("--server", "http://127.0.0.1:9", "roll", "s", "1d6")
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"Error: the token file {ann.token_file} cannot be read")
    assert ann.token_file.read_text() == "{not json"


def test_a_plain_http_server_beyond_this_machine_is_warned_of(tmp_path: Path) -> None:
    ann = Terminal(tmp_path / "ann")
    # No token is kept for the session, so nothing is sent: the warning comes first.
    result = ann.run("--server", "http://192.0.2.1:9", "roll", "s", "1d6")
    assert result.exit_code == 1
    warned, refused = result.stderr.splitlines()
    assert warned == "WARNING: http://192.0.2.1:9 is not https: your token travels unencrypted"
    assert refused.startswith("Error: you hold no token for session 's'")
