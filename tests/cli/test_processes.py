"""Real ``diceledger`` processes: two players rolling at once, and output on a terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from diceledger.domain.hashchain import verify_chain
from diceledger.domain.json import JsonObject
from tests.cli.conftest import Ledger
from tests.documents import int_at

DICELEDGER = str(Path(sys.executable).parent / "diceledger")
ROLLS_EACH = 4


def environment(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DICELEDGER_")}
    env.pop("NO_COLOR", None)
    return {**env, "DICELEDGER_DB": url, **extra}


def roll_many(url: str, session_id: str, player: str) -> list[JsonObject]:
    """Run ROLLS_EACH separate `diceledger roll` processes one after another."""
    answers: list[JsonObject] = []
    for n in range(ROLLS_EACH):
        done = subprocess.run(
            [DICELEDGER, "--as", player, "--json", "roll", session_id, "1d20+1d6",
             "--label", f"{player}-{n}"],
            env=environment(url),
            capture_output=True,
            text=True,
            timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        answers.append(json.loads(done.stdout))
    return answers


@pytest.mark.slow
def test_two_players_rolling_at_once_both_succeed_and_the_chain_verifies(
    ledger: Ledger, table: str
) -> None:
    with ThreadPoolExecutor(2) as pool:
        ann, bob = pool.map(lambda who: roll_many(ledger.url, table, who), ["ann", "bob"])
    ids = [int_at(answer, "roll_id") for answer in ann + bob]
    assert sorted(ids) == list(range(1, 2 * ROLLS_EACH + 1))
    state = ledger.state(table)
    by_label = {roll.request.label: roll for roll in state.rolls.values()}
    assert set(by_label) == {f"{p}-{n}" for p in ("ann", "bob") for n in range(4)}
    for answer in ann + bob:
        roll = state.rolls[int_at(answer, "roll_id")]
        assert roll.request.label == answer["label"]
        assert roll.request.roller == answer["roller"]
        assert roll.resolution is not None and roll.resolution.total == answer["total"]
    nonces = sorted(roll.request.nonce for roll in state.rolls.values())
    assert nonces == list(range(1, 2 * ROLLS_EACH + 1))
    assert verify_chain(ledger.store.read_stream(table)) is None


def on_terminal(url: str, *args: str, **env: str) -> str:
    """Run diceledger with its output on a pseudo-terminal; return what it wrote."""
    leader, follower = pty.openpty()
    with subprocess.Popen(
        [DICELEDGER, *args], stdout=follower, stderr=follower, env=environment(url, **env)
    ) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closes once the process is gone
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait(timeout=120) == 0
    os.close(leader)
    return b"".join(chunks).decode()


def advantage_check(session_id: str) -> tuple[str, ...]:
    """Return ann's check with advantage whose dice are 4 (dropped) and 17 (kept)."""
    return ("--as", "ann", "check", session_id, "1d20+5", "--target", "15", "--adv", "1",
            "--faces", "4,17")  # fmt: skip


@pytest.mark.slow
def test_a_terminal_shows_kept_dice_bold_and_no_color_turns_styling_off(
    ledger: Ledger, table: str
) -> None:
    styled = on_terminal(ledger.url, *advantage_check(table))
    assert "\x1b[1m17\x1b[0m" in styled
    assert "\x1b[2m\x1b[9m4\x1b[0m" in styled  # the dropped die: dim and struck through
    plain = on_terminal(ledger.url, *advantage_check(table), NO_COLOR="1")
    assert "\x1b" not in plain
    assert "1d20 (~~4~~, **17**) + 5 = 22 vs 15: success" in plain


def test_output_that_is_not_a_terminal_has_no_escape_codes(ledger: Ledger, table: str) -> None:
    # color=True stops click from stripping escapes itself: any left are diceledger's own.
    commands = [
        advantage_check(table)[1:],
        ("bob", "roll", table, "1d6", "--faces", "6,1", "--reroll", "1"),
        ("ann", "opposed", table, "1d20", "--vs", "bob", "1d20", "--adv", "1"),
        ("gm", "session", "show", table),
    ]
    for actor, *args in commands:
        result = ledger.run(actor, *args, color=True)
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.output
