"""Export a session as JSON Lines and import it elsewhere, verifying the chain on the way in."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from freezegun import freeze_time
from sqlalchemy.engine import Engine

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.errors import CorruptLogError
from diceledger.domain.hashchain import verify_chain
from diceledger.domain.session import commands as cmd
from diceledger.infra.store.database import make_engine, upgrade
from diceledger.infra.store.exporting import (
    FIELDS,
    check_export,
    import_export,
    read_export,
    write_export,
)
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.support import memory_services


@pytest.fixture
def engines() -> Iterator[list[Engine]]:
    made: list[Engine] = []
    yield made
    for engine in made:
        engine.dispose()


def played_store(url: str, engines: list[Engine]) -> tuple[SqlEventStore, str]:
    """Play a short session on a SQL store; return the store and the session id."""
    from diceledger.infra.app.sessions import SessionService
    from diceledger.infra.vault.seeds import SeedVault

    engine = make_engine(url)
    engines.append(engine)
    store = SqlEventStore(engine)
    sessions = SessionService(store, SeedVault(engine))
    with freeze_time("2026-11-29 20:00:00.123456", tick=True):
        sid = sessions.start("Tomb", "gm").session_id
        sessions.execute(sid, "ann", cmd.JoinSession("ann"))
        sessions.execute(sid, "ann", cmd.RequestRoll(RollKind.CHECK, "1d20+3", target=Target(12)))
        sessions.execute(
            sid,
            "ann",
            cmd.RequestRoll(RollKind.DAMAGE, "2d6", rerolls=1, reroll_scope=RerollScope.DAMAGE),
        )
        sessions.end(sid, "gm")
    return store, sid


def test_sqlite_to_postgres_round_trip_keeps_an_identical_chain(
    sqlite_url: str, postgres_url: str, tmp_path: Path, engines: list[Engine]
) -> None:
    source, sid = played_store(sqlite_url, engines)
    path = tmp_path / "tomb.jsonl"
    assert write_export(source.read_stream(sid), path) == source.current_version(sid)
    upgrade(postgres_url)
    engines.append(make_engine(postgres_url))
    target = SqlEventStore(engines[-1])
    assert import_export(target, path) == (source.current_version(sid), source.current_version(sid))
    original = [
        (r.event_id, r.stream_version, r.recorded_at, r.prev_hash, r.hash, r.data)
        for r in source.read_stream(sid)
    ]
    copied = [
        (r.event_id, r.stream_version, r.recorded_at, r.prev_hash, r.hash, r.data)
        for r in target.read_stream(sid)
    ]
    assert copied == original
    assert verify_chain(target.read_stream(sid)) is None


def test_importing_the_same_file_twice_appends_nothing_the_second_time(
    sqlite_url: str, tmp_path: Path, engines: list[Engine]
) -> None:
    source, sid = played_store(sqlite_url, engines)
    path = tmp_path / "tomb.jsonl"
    write_export(source.read_stream(sid), path)
    target = InMemoryEventStore()
    lines, appended = import_export(target, path)
    assert appended == lines > 0
    assert import_export(target, path) == (lines, 0)
    assert target.head_position() == lines


def test_each_line_has_exactly_the_documented_keys_and_the_hashed_timestamp(
    sqlite_url: str, tmp_path: Path, engines: list[Engine]
) -> None:
    source, sid = played_store(sqlite_url, engines)
    path = tmp_path / "tomb.jsonl"
    write_export(source.read_stream(sid), path)
    first = json.loads(path.read_text().splitlines()[0])
    assert tuple(first) == FIELDS
    assert first["recorded_at"].startswith("2026-11-29T20:00:00.")
    assert first["recorded_at"].endswith("Z") and len(first["recorded_at"]) == 27
    assert [r.hash for r in read_export(path)] == [r.hash for r in source.read_stream(sid)]


def tampered(
    tmp_path: Path, sqlite_url: str, engines: list[Engine], change: Callable[[list[str]], list[str]]
) -> Path:
    source, sid = played_store(sqlite_url, engines)
    path = tmp_path / "tomb.jsonl"
    write_export(source.read_stream(sid), path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(change(lines)))
    return path


def test_a_changed_face_is_refused_naming_its_line(
    sqlite_url: str, tmp_path: Path, engines: list[Engine]
) -> None:
    def cheat(lines: list[str]) -> list[str]:
        record = json.loads(lines[6])
        record["data"]["total"] = 99
        lines[6] = json.dumps(record) + "\n"
        return lines

    path = tampered(tmp_path, sqlite_url, engines, cheat)
    target = InMemoryEventStore()
    with pytest.raises(CorruptLogError, match=r"^line 7: hash does not match"):
        import_export(target, path)
    assert target.head_position() == 0


def test_a_missing_line_breaks_the_chain_at_the_next_one(
    sqlite_url: str, tmp_path: Path, engines: list[Engine]
) -> None:
    path = tampered(tmp_path, sqlite_url, engines, lambda lines: lines[:3] + lines[4:])
    with pytest.raises(CorruptLogError, match=r"^line 4: version 5 follows version 3"):
        check_export(path)


def test_a_file_cut_mid_line_is_refused_as_partial(
    sqlite_url: str, tmp_path: Path, engines: list[Engine]
) -> None:
    path = tampered(tmp_path, sqlite_url, engines, lambda lines: [*lines[:-1], lines[-1][:40]])
    count = len(path.read_text().splitlines())
    target = InMemoryEventStore()
    with pytest.raises(CorruptLogError, match=rf"^line {count}: cut short"):
        import_export(target, path)
    assert target.head_position() == 0


def test_a_line_with_an_extra_key_or_bad_json_is_named(
    sqlite_url: str, tmp_path: Path, engines: list[Engine]
) -> None:
    path = tampered(
        tmp_path, sqlite_url, engines, lambda lines: [lines[0], "{not json\n", *lines[2:]]
    )
    with pytest.raises(CorruptLogError, match=r"^line 2: not JSON"):
        list(read_export(path))
    path = tampered(
        tmp_path, sqlite_url, engines, lambda lines: [lines[0][:-2] + ',"x":1}\n', *lines[1:]]
    )
    with pytest.raises(CorruptLogError, match=r"^line 1: missing nothing, unexpected \['x'\]"):
        list(read_export(path))


def test_an_export_reads_back_without_any_database(tmp_path: Path) -> None:
    services = memory_services()
    sid = services.sessions.start("Tomb", "gm").session_id
    path = tmp_path / "memory.jsonl"
    write_export(services.store.read_stream(sid), path)
    assert [r.event_type for r in read_export(path)] == [
        "SessionStarted",
        "PlayerJoined",
        "SeedCommitted",
    ]
    assert check_export(path) == 3
