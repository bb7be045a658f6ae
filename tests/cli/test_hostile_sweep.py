"""Every command, driven with hostile values and files: one line, never a traceback, no append.

The sweep runs each command of the registry in process with values a hostile player or a
careless operator types (terminal escapes, newlines, bidi overrides, NUL, 100 KB strings,
digits of other scripts, 10**30, paths that are no files) and files that are no export or
no database. Each run must end as click ends a run, with exit code 0, 1 or 2: a refusal
(1) is one line on stderr starting ``Error:``, a usage error (2) ends in one; nothing is
appended on either; and no output carries a raw control or bidi character.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result
from sqlalchemy.engine import Engine

from diceledger.cli.registry import COMMANDS
from diceledger.infra.store import database
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import SeedVault
from tests.cli.conftest import Ledger

VALUES = [
    "\x1b[2J\x1b[H",
    "two\nlines\rback",
    "\u202eevil",
    "nul\x00byte",
    "x" * 100_000,
    "\u0663",
    str(10**30),
    "-1",
    "",
    "' OR 1=1 --",
]
# Templates: {s} the session, {r} an existing roll, {v} a hostile value, {f} a hostile file.
TEMPLATES = [
    "session start {v}",
    "session join {s} --client-seed {v}",
    "session join {v}",
    "session join {s} --name {v}",
    "session show {v}",
    "session end {v}",
    "session end {s} --dispute-days {v}",
    "session list",
    "join {v}",  # no value is an http(s) link: each is refused before any request
    "logout {v}",
    "session start x --campaign {v}",
    "campaign start {v}",
    "campaign show {v}",
    "campaign list",
    "serve --port {v}",  # every hostile value is refused before a server could start
    "serve --workers {v}",
    "discord register --app-id {v} --dry-run",  # a dry run: nothing is sent anywhere
    "checkpoint {v}",
    "receipt {s} {v}",
    "receipt {v} 1",
    "verify {s} --checkpoint {f}",
    "verify --receipt {f}",
    "roll {s} {v}",
    "roll {s} 1d6 --label {v}",
    "roll {s} 1d6 --salt {v}",
    "roll {s} 1d6 --action {v}",
    "roll {s} 1d6 --for {v}",
    "roll {s} 1d6 --faces {v}",
    "roll {s} 1d6 --reroll {v}",
    "roll {s} 1d6 --eased {v}",
    "roll {s} 1d6 --replaces {v}",
    "check {s} 1d20 --target {v}",
    "check {s} 1d20 --dc {v}",
    "check {s} 1d20 --target 10 --adv {v}",
    "save {s} 1d20 --target 9 --against {v}",
    "opposed {s} 1d20 --vs {v} 1d20",
    "opposed {s} 1d20 --vs bob {v}",
    "reroll {s} {v} --die 0",
    "reroll {s} {r} --die {v}",
    "accept {s} {v}",
    "roll-side {s} {v}",
    "roll-side {s} {r} --faces {v}",
    "reveal {s} {v}",
    "seed reveal {v}",
    "dispute open {s} {r} --reason {v}",
    "dispute review {s} {v}",
    "dispute resolve {s} {r} --uphold --note {v}",
    "verify {v}",
    "verify --file {f}",
    "odds {v}",
    "odds 1d20 --target {v}",
    "odds 1d20 --reroll {v}",
    "replay {s} --at {v}",
    "replay {s} --until-position {v}",
    "replay {v}",
    "stats --session {v}",
    "stats --player {v}",
    "stats --campaign {v}",
    "stats -o {f}",
    "keys list",  # never "keys rotate": the run shares one signing key
    "projections status",
    "projections rebuild",
    "export {s} -o {f}",
    "export {v} -o {f}",
    "import {f}",
    "db current",
    "db upgrade",
    "demo --seed {v}",
    "demo --dir {f}",
    "character create {s} {v}",
    "character create {v} Hero",
    "character create {s} Hero --for {v}",
    "character set {s} Hero {v}",
    "character set {s} {v} STR=1",
    "character save-roll {s} Hero {v} 1d20",
    "character save-roll {s} Hero Axe {v}",
    "character show {s} {v}",
    "character list {v}",
    "character sheets {s} {v}",
    "character retire {s} {v}",
    "roll {s} --saved {v}",
    "save {s} 1d20+@STR --dc {v} --against Hero",
]


def hostile_files(folder: Path) -> list[Path]:
    """Files a careless operator names: nothing there, a folder, no export, a broken one."""
    folder.mkdir()
    made = {
        "empty.jsonl": b"",
        "binary.jsonl": bytes(range(256)) * 4,
        "latin1.jsonl": '{"position": "caf\xe9"}\n'.encode("latin-1"),
        "deep.jsonl": b"[" * 100_000 + b"]" * 100_000 + b"\n",
        "huge.jsonl": b'{"data": "' + b"x" * (2 << 20) + b'"}\n',
        "cut.jsonl": b'{"position": 1, "event_id": "',
        "notes.sqlite": b"my notes, not a database\n" * 50,
    }
    for name, data in made.items():
        (folder / name).write_bytes(data)
    return [*(folder / name for name in made), folder, folder / "missing" / "x.jsonl"]


def expand(template: str, session: str, files: list[Path]) -> Iterator[list[str]]:
    words = template.split(" ")
    values = VALUES if "{v}" in words else [""]
    if words[0] == "demo":  # a whole number is a fine seed: the demo would play its session
        values = [v for v in values if not v.lstrip("-").isdigit()]
    paths = files if "{f}" in words else [Path()]
    for value, path in itertools.product(values, paths):
        fill = {"{v}": value, "{f}": str(path)}
        yield [fill[w] if w in fill else w.format(s=session, r="1") for w in words]


RAW = ("\x1b", "\x00", "\x07", "\u202e", "\r")


def assert_clean(result: Result, args: list[str]) -> None:
    where = repr(args)[:200]
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        where,
        result.exc_info,
    )
    assert result.exit_code in (0, 1, 2), where
    for stream in (result.stdout, result.stderr):
        assert not any(char in stream for char in RAW), (where, stream[:300])
    lines = result.stderr.splitlines()
    if result.exit_code == 1:
        # verify reports what it checked before the failure it names; others print nothing.
        first = (
            ("Error: ", "FAILED at ", "CHECKPOINT FAILED: ")
            if args[0] == "verify"
            else ("Error: ",)
        )
        assert result.stdout == "" or args[0] == "verify", where
        assert len(lines) == 1 and lines[0].startswith(first), (where, result.stderr[:300])
    if result.exit_code == 2:
        assert lines and lines[-1].startswith("Error: "), (where, result.stderr[:300])
        assert "Traceback" not in result.stderr


def test_the_sweep_covers_every_command_of_the_registry() -> None:
    swept = {template.split(" ")[0] for template in TEMPLATES}
    assert swept == set(COMMANDS) | {"import"} - {"import_"}


def sweep(ledger: Ledger, table: str, files: list[Path], actors: list[str]) -> int:
    """Run every template with every value and file as each actor; return how many runs."""
    ledger.ok("ann", "check", table, "1d20+2", "--target", "12", "--faces", "15")
    runs = 0
    for template, actor in itertools.product(TEMPLATES, actors):
        for args in expand(template, table, files):
            before = ledger.store.head_position()
            result = ledger.run(actor, *args)
            assert_clean(result, args)
            if result.exit_code != 0:
                assert ledger.store.head_position() == before, args
            runs += 1
    assert ledger.ok("gm", "verify", table).startswith(f"session {table}:")
    return runs


def test_every_command_with_hostile_values_and_files_refuses_cleanly_and_appends_nothing(
    ledger: Ledger, table: str, tmp_path: Path
) -> None:
    files = hostile_files(tmp_path / "hostile")
    assert sweep(ledger, table, files, ["gm", "ann\x1b[31m"]) > 700


@pytest.fixture
def postgres_ledger(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Ledger]:
    """A ledger on PostgreSQL whose commands share one engine, disposed at the end."""
    database.upgrade(postgres_url)
    engines: dict[str, Engine] = {}
    build = database.make_engine

    def shared(url: str, *args: object, **kwargs: object) -> Engine:
        if url not in engines:
            engines[url] = build(url)
        return engines[url]

    monkeypatch.setattr(database, "make_engine", shared)
    engine = shared(postgres_url)
    try:
        yield Ledger(postgres_url, SqlEventStore(engine), SeedVault(engine))
    finally:
        for made in engines.values():
            made.dispose()


def test_the_sweep_holds_on_postgresql(postgres_ledger: Ledger, tmp_path: Path) -> None:
    ledger = postgres_ledger
    table = ledger.data("gm", "session", "start", "Tomb of Ash")["session_id"]
    ledger.ok("ann", "session", "join", table)
    ledger.ok("bob", "session", "join", table)
    files = hostile_files(tmp_path / "hostile")
    assert sweep(ledger, table, files, ["gm"]) > 350


@pytest.mark.parametrize(
    "path", ["notes.sqlite", "binary.jsonl", "."], ids=["text", "bytes", "dir"]
)
def test_every_command_against_a_file_that_is_no_database_is_one_line(
    ledger: Ledger, tmp_path: Path, path: str
) -> None:
    files = {p.name: p for p in hostile_files(tmp_path / "hostile")}
    target = files.get(path, tmp_path / "hostile")
    url = f"sqlite:///{target}"
    for template in TEMPLATES:
        if template.startswith(("odds", "demo", "verify --file")):
            continue  # these need no database
        for args in itertools.islice(expand(template, "some-session", [files["empty.jsonl"]]), 2):
            result = ledger.run("gm", "--db", url, *args)
            assert_clean(result, args)
            assert result.exit_code != 0, args
