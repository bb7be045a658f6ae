"""A session played through the command line, exported the way a GM would share it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from diceledger.cli.main import cli
from diceledger.infra.store.database import upgrade
from diceledger.infra.store.exporting import read_export

# The played session needs a seeded explosion and a seeded tie (typed-in dice would not
# test the derivation), so it rolls until they happen, within a bound no run reaches:
# 6d4 fails to explode with chance (3/4)^6 a roll, 1d4n vs 1d4n fails to tie with chance
# 3/4, so a run of 150 misses either with chance below 1e-18.
TRIES = 150


@dataclass(frozen=True)
class Cli:
    """Run ``diceledger`` in-process against one SQLite file."""

    url: str

    def run(self, actor: str, *args: str) -> str:
        """Run ``diceledger --as ACTOR ARGS...``; it must succeed; return its output."""
        runner = CliRunner(env={"DICELEDGER_DB": self.url, "NO_COLOR": "1"})
        result = runner.invoke(cli, ["--as", actor, *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    def data(self, actor: str, *args: str) -> Any:
        """Run a command with ``--json``; return the JSON document it printed."""
        return json.loads(self.run(actor, *args, "--json"))

    def verify_file(self, path: Path) -> dict[str, Any]:
        """Return ``diceledger verify --file PATH --json`` as data, whether it passed or not."""
        runner = CliRunner(env={"NO_COLOR": "1"})
        result = runner.invoke(cli, ["verify", "--file", str(path), "--json"])
        assert result.exit_code in (0, 1), result.output
        report: dict[str, Any] = json.loads(result.stdout)
        assert report["ok"] == (result.exit_code == 0)
        return report


@dataclass(frozen=True)
class PlayedSession:
    """The exports of one session: halfway (seed epoch 2 unrevealed) and after its end."""

    session_id: str
    halfway: Path
    ended: Path


def event_types(path: Path) -> list[str]:
    """Return the event types of an export, in order."""
    return [record.event_type for record in read_export(path)]


def _exploded(roll: dict[str, Any]) -> bool:
    return any(die["reason"] == "explosion" for die in roll["dice"])


def _tied(roll: dict[str, Any]) -> bool:
    return bool(roll["rounds"] > 1)


def _roll_until(table: Cli, actor: str, args: tuple[str, ...], wanted: Callable[..., bool]) -> None:
    for _ in range(TRIES):
        if wanted(table.data(actor, *args)):
            return
    raise AssertionError(f"no roll of {TRIES} {args} was {wanted.__name__}")


def _opposed_with_rerolls(table: Cli, sid: str) -> None:
    """Opposed checks whose sides reroll: a seeded reroll of the other side, and an accept
    whose tied round is drawn under a nonce of its own (12 all, typed in by the GM, who
    decides both sides against an NPC)."""
    sides = ("opposed", sid, "1d20+2", "--vs", "bob", "1d20", "--reroll", "1")
    first = table.data("ann", *sides, "--vs-reroll", "1", "--faces", "10")["roll_id"]
    table.run("ann", "accept", sid, str(first))
    table.run("bob", "reroll", sid, str(first), "--die", "0")
    npc = ("opposed", sid, "1d20+2", "--vs", "orc", "1d20", "--reroll", "1")
    second = table.data("gm", *npc, "--faces", "10,12")["roll_id"]
    for roll_id in (first, second):
        roll = table.data("ann", "session", "show", sid)["rolls"][roll_id - 1]
        for _ in range(TRIES):  # each tie is a fresh round whose sides accept again
            if roll["status"] != "awaiting_rerolls":
                break
            roll = table.data(roll["waiting_for"], "accept", sid, str(roll_id))
        assert roll["status"] != "awaiting_rerolls", f"roll {roll_id} tied {TRIES} rounds"


def play_session(folder: Path) -> PlayedSession:
    """Play a session of every kind of roll on a new SQLite file in ``folder``; export it."""
    url = f"sqlite:///{folder / 'table.sqlite'}"
    upgrade(url)
    table = Cli(url)
    sid: str = table.data("gm", "session", "start", "Tombe de verre — Glaß ✨")["session_id"]
    table.run("ann", "session", "join", sid, "--client-seed", "ann's lucky words")
    table.run("bob", "session", "join", sid)
    table.run("zoë", "session", "join", sid, "--client-seed", 'dés 🎲 "quoted" \\ back')
    table.run("ann", "check", sid, "1d20+3[STR]", "--target", "14", "--adv", "1:flank")
    table.run("bob", "check", sid, "1d20+1", "--dc", "3:WIS", "--dis", "1:fog", "--median")
    table.run("zoë", "roll", sid, "8d4+2", "--kind", "damage", "--salt", "zoë's salt")
    table.run("bob", "roll", sid, "3d6", "--kind", "damage", "--reroll", "3")
    waiting = table.data("gm", "session", "show", sid)["rolls"][-1]["roll_id"]
    table.run("bob", "reroll", sid, str(waiting), "--die", "0")
    table.run("bob", "reroll", sid, str(waiting), "--die", "1", "--die", "2")
    table.run("gm", "opposed", sid, "1d20", "--vs", "orc", "1d20", "--faces", "10,10,5,3")
    table.run("ann", "roll", sid, "2d6+1", "--faces", "3,6,6,2")
    table.run("gm", "seed", "reveal", sid)
    table.run("ann", "check", sid, "1d20+2", "--target", "10", "--eased", "1:bless")
    _roll_until(table, "zoë", ("roll", sid, "6d4"), _exploded)
    _roll_until(table, "gm", ("opposed", sid, "1d4n", "--vs", "orc", "1d4n"), _tied)
    table.run("gm", "check", sid, "1d20", "--target", "12", "--blind", "--for", "bob")
    _opposed_with_rerolls(table, sid)
    halfway = folder / "halfway.jsonl"
    table.run("gm", "export", sid, "-o", str(halfway))
    table.run("gm", "session", "end", sid)
    ended = folder / "ended.jsonl"
    table.run("gm", "export", sid, "-o", str(ended))
    return PlayedSession(sid, halfway, ended)
