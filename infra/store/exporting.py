"""A session's events as JSON Lines, and back: the export format (docs/storage.md).

One JSON object per line with exactly the keys of ``FIELDS``. ``recorded_at`` is written
as the hash chain hashes it (ISO 8601 UTC, six fractional digits, ``Z``), so a reader can
recompute every hash from the line alone. Reading needs no database.

A file to read may come from anyone, so reading is bounded: a line is read up to
``MAX_LINE_BYTES`` and refused past it (never held whole), must be UTF-8, and its JSON
may nest at most ``MAX_DEPTH`` deep. Each refusal is an CorruptLogError naming the line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from diceledger.domain.errors import CorruptLogError
from diceledger.domain.hashchain import ChainVerifier, format_timestamp
from diceledger.domain.records import ExportedEvent, RecordedEvent, SealedEvent
from diceledger.domain.verification.verify import verify_each_session
from diceledger.infra.codec.events import from_record
from diceledger.infra.store.port import EventStore

FIELDS = (
    "position",
    "event_id",
    "stream_id",
    "stream_version",
    "event_type",
    "schema_version",
    "data",
    "meta",
    "recorded_at",
    "prev_hash",
    "hash",
)
# The keys of a sealed line: an event of a hidden blind roll, as a player's export holds it.
SEALED_FIELDS = (
    "position",
    "stream_id",
    "stream_version",
    "sealed",
    "roll_id",
    "prev_hash",
    "hash",
)
_TIMESTAMP = "%Y-%m-%dT%H:%M:%S.%fZ"
# The patterns docs/schema/events.schema.json gives the envelope, enforced as it says.
_PATTERNS = {
    "event_id": re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    "recorded_at": re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z"),
    "prev_hash": re.compile(r"[0-9a-f]{64}"),
    "hash": re.compile(r"[0-9a-f]{64}"),
}
_AT_LEAST_ONE = ("position", "stream_version", "schema_version")
MAX_STREAM_ID = 200
# The largest event the rules write is a roll's 1,000 initial dice, about 200 KB.
MAX_LINE_BYTES = 1 << 20
MAX_DEPTH = 32
_CHUNK = 1 << 20
_TYPES: dict[str, type | tuple[type, ...]] = {
    "position": int,
    "event_id": str,
    "stream_id": str,
    "stream_version": int,
    "event_type": str,
    "schema_version": int,
    "data": dict,
    "meta": dict,
    "recorded_at": str,
    "prev_hash": str,
    "hash": str,
}


def export_line(record: RecordedEvent) -> str:
    """Return one record as a JSON line (no newline), keys in the documented order."""
    document: dict[str, Any] = {name: getattr(record, name) for name in FIELDS}
    document["recorded_at"] = format_timestamp(record.recorded_at)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def sealed_line(record: RecordedEvent, roll_id: int) -> str:
    """Return an event of a hidden roll as a sealed line: its link in the chain, no content."""
    document = {
        "position": record.position,
        "stream_id": record.stream_id,
        "stream_version": record.stream_version,
        "sealed": True,
        "roll_id": roll_id,
        "prev_hash": record.prev_hash,
        "hash": record.hash,
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def export_lines(
    records: Iterable[RecordedEvent], sealed: frozenset[int] = frozenset()
) -> Iterator[str]:
    """Yield each record as a JSON line ending in a newline; those of ``sealed`` rolls sealed."""
    for record in records:
        roll_id = record.data.get("roll_id")
        if roll_id in sealed and isinstance(roll_id, int):
            yield sealed_line(record, roll_id) + "\n"
        else:
            yield export_line(record) + "\n"


def write_export(records: Iterable[RecordedEvent], path: str | Path) -> int:
    """Write records to ``path`` through a temporary file; return how many were written."""
    return write_lines(export_lines(records), path)


def write_lines(lines: Iterable[str], path: str | Path) -> int:
    """Write export lines to ``path`` through a temporary file; return how many."""
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    count = 0
    try:
        file = partial.open("w", encoding="utf-8", newline="\n")
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(target)) from None  # name what was asked
    with file:
        for line in lines:
            file.write(line)
            count += 1
        file.flush()
        os.fsync(file.fileno())
    # A crash leaves the .partial file, never a truncated export under the real name.
    partial.replace(target)
    return count


def read_export(path: str | Path) -> Iterator[RecordedEvent]:
    """Yield the records of an export file; raise CorruptLogError "line N: ..." on a bad one.

    A sealed line is refused: what holds one is a player's view, checkable but not whole.
    """
    for number, line in enumerate(read_lines(path), start=1):
        if isinstance(line, SealedEvent):
            raise CorruptLogError(
                f"line {number}: a sealed event of hidden roll {line.roll_id}; "
                "only a complete export (a GM's, or one after the reveal) can be taken in"
            )
        yield line


def read_lines(path: str | Path) -> Iterator[ExportedEvent]:
    """Yield the lines of an export file, sealed ones included; raise CorruptLogError "line N"."""
    with Path(path).open("rb") as file:
        yield from read_stream(file)


def read_stream(file: BinaryIO) -> Iterator[ExportedEvent]:
    """Yield the lines of an export read from ``file`` (a file, or bytes a browser was given)."""
    number = 0
    while raw := file.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise CorruptLogError(
                f"line {number}: longer than {MAX_LINE_BYTES:,} bytes; no event is that large"
            )
        yield parse_exported(_text(raw, number), number)


def count_lines(path: str | Path) -> int:
    """Return how many lines a file has, reading it in chunks (any line length)."""
    count = 0
    with Path(path).open("rb") as file:
        while chunk := file.read(_CHUNK):
            count += chunk.count(b"\n")
    return count


def _text(raw: bytes, number: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorruptLogError(
            f"line {number}: not UTF-8 text (byte 0x{raw[error.start]:02x} at {error.start})"
        ) from None


def _too_deep(value: Any) -> bool:
    """Tell whether a parsed JSON value nests deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return False


def parse_line(line: str, number: int) -> RecordedEvent:
    """Return the record on one export line, or raise CorruptLogError naming the line."""
    parsed = parse_exported(line, number)
    if isinstance(parsed, SealedEvent):
        raise CorruptLogError(f"line {number}: a sealed event where a whole one belongs")
    return parsed


def parse_exported(line: str, number: int) -> ExportedEvent:
    """Return the event or sealed event on one export line, or raise CorruptLogError."""
    if not line.endswith("\n"):
        raise CorruptLogError(f"line {number}: cut short (no line end); the file is partial")
    try:
        document = json.loads(line, object_pairs_hook=_unique_keys)
    except _DuplicateKeyError as error:
        raise CorruptLogError(
            f"line {number}: the key '{error}' appears twice in an object"
        ) from None
    except RecursionError:
        raise CorruptLogError(f"line {number}: JSON nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, or an integer of thousands of digits
        reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        raise CorruptLogError(f"line {number}: not JSON ({reason})") from None
    if not isinstance(document, dict):
        raise CorruptLogError(f"line {number}: not a JSON object")
    if _too_deep(document):
        raise CorruptLogError(f"line {number}: JSON nested deeper than {MAX_DEPTH} levels")
    if "sealed" in document:
        return _sealed(document, number)
    missing = [name for name in FIELDS if name not in document]
    extra = sorted(set(document) - set(FIELDS))
    if missing or extra:
        raise CorruptLogError(f"line {number}: missing {missing or 'nothing'}, unexpected {extra}")
    for name, kind in _TYPES.items():
        value = document[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CorruptLogError(f"line {number}: {name} has the wrong type")
    for name, pattern in _PATTERNS.items():
        if pattern.fullmatch(document[name]) is None:
            raise CorruptLogError(f"line {number}: {name} is not like {pattern.pattern}")
    for name in _AT_LEAST_ONE:
        if document[name] < 1:
            raise CorruptLogError(f"line {number}: {name} is below 1")
    if not 1 <= len(document["stream_id"]) <= MAX_STREAM_ID:
        raise CorruptLogError(f"line {number}: stream_id is not 1 to {MAX_STREAM_ID} characters")
    try:
        recorded_at = datetime.strptime(document["recorded_at"], _TIMESTAMP).replace(tzinfo=UTC)
    except ValueError:
        raise CorruptLogError(f"line {number}: recorded_at is not like {_TIMESTAMP}") from None
    return RecordedEvent(**{**document, "recorded_at": recorded_at})


class _DuplicateKeyError(ValueError):
    """A JSON object names one key twice: which value counts would be the reader's guess."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _DuplicateKeyError(key)
        seen.add(key)
    return dict(pairs)


def _sealed(document: dict[str, Any], number: int) -> SealedEvent:
    missing = [name for name in SEALED_FIELDS if name not in document]
    extra = sorted(set(document) - set(SEALED_FIELDS))
    if missing or extra:
        raise CorruptLogError(
            f"line {number}: a sealed line missing {missing or 'nothing'}, unexpected {extra}"
        )
    if document["sealed"] is not True:
        raise CorruptLogError(f"line {number}: sealed is true on a sealed line, or absent")
    for name in ("position", "stream_version", "roll_id"):
        value = document[name]
        if not isinstance(value, int) or isinstance(value, bool):
            raise CorruptLogError(f"line {number}: {name} has the wrong type")
    for name in ("stream_id", "prev_hash", "hash"):
        if not isinstance(document[name], str):
            raise CorruptLogError(f"line {number}: {name} has the wrong type")
    fields = {name: document[name] for name in SEALED_FIELDS if name != "sealed"}
    return SealedEvent(**fields)


def check_export(path: str | Path) -> int:
    """Verify an export file's lines and hash chains from genesis; return its line count.

    Raises CorruptLogError "line N: <reason>" at the first bad line.
    """
    return sum(1 for _ in checked_lines(path))


def checked_lines(path: str | Path) -> Iterator[RecordedEvent]:
    """Yield an export's records, raising CorruptLogError "line N: ..." at the first bad one."""
    verifier = ChainVerifier()
    for number, record in enumerate(read_export(path), start=1):
        problem = verifier.check(record)
        if problem is not None:
            raise CorruptLogError(
                f"line {number}: {problem.reason} ({record.stream_id} v{record.stream_version})"
            )
        yield record


def import_export(store: EventStore, path: str | Path) -> tuple[int, int]:
    """Check an export file, then append what the store lacks; return (lines, appended).

    Beyond its hash chains, each session in the file must verify (docs/verification.md):
    events that decode and follow one another under the rules, nonces, commitments, dice and
    outcomes. A
    chain is easy to recompute after forging an event, and the store keeps whatever it
    takes in for good, so a session that does not verify is refused whole. Both checks
    run in one reading of the file; the append is a second one.
    """
    lines = sum(check_importable(path).values())
    return lines, store.import_recorded(read_export(path))


def check_importable(path: str | Path) -> dict[str, int]:
    """Check an export's chains and that each of its sessions verifies; count each's events.

    Raises CorruptLogError naming the first bad line, or the session that does not verify.
    """
    reports = verify_each_session(checked_lines(path), from_record)
    if not reports:
        raise CorruptLogError(f"{path} holds no events; nothing imported")
    for report in reports:
        failure = report.first_failure
        if failure is not None:
            raise CorruptLogError(
                f"session '{report.session_id}' does not verify at version "
                f"{failure.stream_version}: {failure.reason}; nothing imported"
            )
    return {report.session_id or "": report.events for report in reports}
