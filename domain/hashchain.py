"""The per-stream hash chain: canonical JSON, event hashes and chain verification.

``hash = sha256(0x00 || canonical_json(record))`` where the record holds every field of an
event except its store-local position, so a chain survives export and import. The 0x00
prefix is the leaf prefix of RFC 9162 (Merkle trees can be built over the same leaves).

Canonical JSON is RFC 8785 restricted to the values events hold: str, int (within the
exactly representable range +-(2**53 - 1)), bool, None, lists and objects whose keys are
str inside the Basic Multilingual Plane. For those values the standard library's encoder
with sorted keys, no spaces and ``ensure_ascii=False`` produces the RFC 8785 bytes (the
tests hold it to the ``rfc8785`` package); anything else (floats, lone surrogates, other
types) is refused by one walk before encoding. It is the one canonical encoder: sealing,
verification, receipts and schema fingerprints all hash through ``canonical_json``.

``recorded_at`` enters the record as ISO 8601 UTC with exactly six fractional digits and a
``Z``: ``2026-11-29T19:40:33.000000Z``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from diceledger.domain.errors import InvalidInputError
from diceledger.domain.records import RecordedEvent

GENESIS_HASH = "0" * 64
LEAF_PREFIX = b"\x00"
MAX_SAFE_INTEGER = 2**53 - 1
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
# Built once: json.dumps would build an encoder on every call. No circular-reference
# markers: _check walks the value first, and the walk never finishes on a cycle.
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False
)


def canonical_json(value: Any) -> bytes:
    """Serialise a JSON value to its RFC 8785 bytes; refuse values outside the event subset."""
    try:
        _check(value)
    except _Refusal as refusal:
        where = "$" + "".join(reversed(refusal.path))
        raise InvalidInputError(f"not canonical JSON: {refusal.reason} at {where}") from None
    try:
        return _ENCODER.encode(value).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInputError("not canonical JSON: a string holds a lone surrogate") from None


def plain_json_copy(value: Any) -> Any:
    """Return a deep copy of a JSON value made of plain dicts and lists (tuples become lists)."""
    kind = type(value)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        return {key: plain_json_copy(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [plain_json_copy(item) for item in value]
    return value


class _Refusal(Exception):
    """A value canonical JSON cannot hold; each container it is inside adds its step."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str] = []  # innermost step first


def _check(value: Any) -> None:
    """Refuse a value canonical JSON cannot hold.

    Exact types are tested first, and a container's leaves without a call: most values of
    an event are leaves. The path of a refusal (``$.data.dice[0]``) is put together only
    when one is raised. Subclasses (a StrEnum, a tuple, a Mapping) are allowed: the encoder
    writes them as their plain values.
    """
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or not (key.isascii() or max(key) <= "\uffff"):
                _check_key(key)
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int and -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                continue
            try:
                _check(item)
            except _Refusal as refusal:
                refusal.path.append(f".{key}")
                raise
    elif kind is list:
        for index, item in enumerate(value):
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int and -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                continue
            try:
                _check(item)
            except _Refusal as refusal:
                refusal.path.append(f"[{index}]")
                raise
    elif value is None or isinstance(value, str | bool):
        return
    elif isinstance(value, int):
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise _Refusal("integer out of the safe range")
    elif isinstance(value, list | tuple):
        _check(list(value))  # walked as the list the encoder writes
    elif isinstance(value, Mapping):
        _check(dict(value))
    else:
        raise _Refusal(f"a value of type {kind.__name__}")


def _check_key(key: object) -> None:
    if not isinstance(key, str):
        raise _Refusal("a non-string object key")
    # RFC 8785 sorts keys by UTF-16 code units, Python by code points; they agree inside
    # the Basic Multilingual Plane only.
    if not key.isascii() and max(key) > "\uffff":
        raise _Refusal("an object key outside the BMP")


@lru_cache(maxsize=64)  # a batch shares one time, and each of its events renders it
def format_timestamp(moment: datetime) -> str:
    """Render an aware time as ISO 8601 UTC with six fractional digits and a ``Z``."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidInputError("recorded_at must be timezone-aware")
    # isoformat, unlike strftime's %Y, always pads the year to four digits.
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def parse_timestamp(text: str) -> datetime:
    """Read a time written by ``format_timestamp`` back; raise ValueError on anything else."""
    return datetime.strptime(text, TIMESTAMP_FORMAT).replace(tzinfo=UTC)


def event_hash(
    *,
    event_id: str,
    stream_id: str,
    stream_version: int,
    event_type: str,
    schema_version: int,
    data: Mapping[str, Any],
    meta: Mapping[str, Any],
    recorded_at: datetime,
    prev_hash: str,
) -> str:
    """Compute an event's chain hash from its fields and its predecessor's hash."""
    return record_object_hash(
        chain_object(
            event_id,
            stream_id,
            stream_version,
            event_type,
            schema_version,
            data,
            meta,
            recorded_at,
            prev_hash,
        )
    )


def record_object_hash(record: Mapping[str, Any]) -> str:
    """Hash the object an event's hash covers (see ``chain_object``)."""
    return hashlib.sha256(LEAF_PREFIX + canonical_json(record)).hexdigest()


def chain_record(record: RecordedEvent) -> dict[str, Any]:
    """Return the JSON object a recorded event's hash covers."""
    return chain_object(
        record.event_id,
        record.stream_id,
        record.stream_version,
        record.event_type,
        record.schema_version,
        record.data,
        record.meta,
        record.recorded_at,
        record.prev_hash,
    )


def chain_object(
    event_id: str,
    stream_id: str,
    stream_version: int,
    event_type: str,
    schema_version: int,
    data: Mapping[str, Any],
    meta: Mapping[str, Any],
    recorded_at: datetime,
    prev_hash: str,
) -> dict[str, Any]:
    """Return the JSON object an event's hash covers: every field but position and hash."""
    return {
        "event_id": event_id,
        "stream_id": stream_id,
        "stream_version": stream_version,
        "event_type": event_type,
        "schema_version": schema_version,
        "data": data,
        "meta": meta,
        "recorded_at": format_timestamp(recorded_at),
        "prev_hash": prev_hash,
    }


def record_hash(record: RecordedEvent) -> str:
    """Compute the hash a recorded event carries (its own ``hash`` field is not read)."""
    return record_object_hash(chain_record(record))


@dataclass(frozen=True, slots=True)
class ChainHead:
    """The last verified link of one stream: its version and hash."""

    version: int = 0
    hash: str = GENESIS_HASH


@dataclass(frozen=True, slots=True)
class ChainProblem:
    """The first place a chain breaks: which event and why."""

    position: int
    stream_id: str
    stream_version: int
    reason: str

    def __str__(self) -> str:
        where = f"position {self.position} ({self.stream_id} v{self.stream_version})"
        return f"{where}: {self.reason}"


class ChainVerifier:
    """Check records one at a time against the heads of their streams.

    A stream starts at ``heads[stream_id]``, else at what ``load_head`` returns for it (a
    store's current head, when records must continue a stored chain), else at genesis.
    """

    def __init__(
        self,
        heads: Mapping[str, ChainHead] | None = None,
        load_head: Callable[[str], ChainHead] | None = None,
    ) -> None:
        self._heads: dict[str, ChainHead] = dict(heads or {})
        self._load_head = load_head

    def head(self, stream_id: str) -> ChainHead:
        """Return the last verified link of a stream."""
        if stream_id not in self._heads:
            loaded = self._load_head(stream_id) if self._load_head else ChainHead()
            self._heads[stream_id] = loaded
        return self._heads[stream_id]

    def check(self, record: RecordedEvent) -> ChainProblem | None:
        """Verify one record and advance its stream's head; return the problem if any."""
        reason = self._find_problem(record)
        if reason is not None:
            return ChainProblem(record.position, record.stream_id, record.stream_version, reason)
        self._heads[record.stream_id] = ChainHead(record.stream_version, record.hash)
        return None

    def _find_problem(self, record: RecordedEvent) -> str | None:
        head = self.head(record.stream_id)
        if record.stream_version != head.version + 1:
            return f"version {record.stream_version} follows version {head.version}"
        if record.prev_hash != head.hash:
            return "prev_hash does not match the previous event's hash"
        try:
            expected = record_hash(record)
        except InvalidInputError as error:
            return str(error)
        if record.hash != expected:
            return "hash does not match the event's contents"
        return None


def verify_chain(
    records: Iterable[RecordedEvent], heads: Mapping[str, ChainHead] | None = None
) -> ChainProblem | None:
    """Verify the chains of the records' streams; return the first problem, or None."""
    verifier = ChainVerifier(heads)
    for record in records:
        problem = verifier.check(record)
        if problem is not None:
            return problem
    return None
