"""The per-stream hash chain: canonical JSON, event hashes and chain verification.

``hash = sha256(0x00 || canonical_json(record))`` where the record holds every field of an
event except its store-local position, so a chain survives export and import. The 0x00
prefix is the leaf prefix of RFC 9162 (Merkle trees can be built over the same leaves).

Canonical JSON is RFC 8785 restricted to the values events hold: str, int (within the
exactly representable range +-(2**53 - 1)), bool, None, lists and objects whose keys are
str inside the Basic Multilingual Plane. For those values ``json.dumps`` with sorted keys,
no spaces and ``ensure_ascii=False`` produces the RFC 8785 bytes, several times faster than
a general implementation; anything else (floats, lone surrogates, other types) is refused.

``recorded_at`` enters the record as ISO 8601 UTC with exactly six fractional digits and a
``Z``: ``2026-11-29T19:40:33.000000Z``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from diceledger.domain.errors import InvalidInputError
from diceledger.domain.records import RecordedEvent

GENESIS_HASH = "0" * 64
LEAF_PREFIX = b"\x00"
MAX_SAFE_INTEGER = 2**53 - 1
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
# A str as JSON text with ensure_ascii=False: the C encoder json.dumps itself uses.
_json_string: Callable[[str], str] = encode_basestring


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _c_encoder() -> Callable[[Any], str]:
    """Return json.dumps(sort_keys, compact, ensure_ascii=False), its C encoder built once.

    json.dumps builds an encoder object on every call, a third of its time on an event's
    data. No circular-reference markers: canonical_text walks a value before encoding it,
    and the walk never finishes on a cycle.
    """
    if c_make_encoder is None:  # a Python without the C accelerator
        return _dumps

    def refuse(value: Any) -> Any:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    chunks = c_make_encoder(None, refuse, encode_basestring, None, ":", ",", True, False, True)
    return lambda value: "".join(chunks(value, 0))


_encode = _c_encoder()


def canonical_json(value: Any) -> bytes:
    """Serialise a JSON value to its RFC 8785 bytes; refuse values outside the event subset."""
    return _utf8(canonical_text(value))


def canonical_text(value: Any, path: str = "$") -> str:
    """Return the text of ``canonical_json``; a lone surrogate is refused only on encoding.

    ``path`` names the value in a refusal (``$.data`` when it is an event's data).
    """
    if not _plainly_canonical(value):
        _check_json_value(value, path)  # the exact walk: raises with a path, or allows subclasses
    return _encode(value)


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
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


def _plainly_canonical(value: Any) -> bool:
    """Tell quickly whether a value holds only exact JSON types within range (the hot path)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or not (key.isascii() or max(key) <= "\uffff"):
                return False
            # The leaves, most of the values, are tested here without a call.
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int:
                if -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    continue
                return False
            if not _plainly_canonical(item):
                return False
        return True
    if kind is list:
        for item in value:
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int:
                if -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    continue
                return False
            if not _plainly_canonical(item):
                return False
        return True
    return False


def _check_json_value(value: Any, path: str) -> None:
    kind = type(value)
    if value is None or kind is str or kind is bool or isinstance(value, str):
        return
    if isinstance(value, int):
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return
        raise InvalidInputError(f"not canonical JSON: integer out of the safe range at {path}")
    # The exact-type tests first: the Mapping ABC check is slow on a hot path.
    if kind is dict or isinstance(value, Mapping):
        for key, item in value.items():
            _check_key(key, path)
            _check_json_value(item, f"{path}.{key}")
        return
    if kind is list or isinstance(value, tuple | list):
        for index, item in enumerate(value):
            _check_json_value(item, f"{path}[{index}]")
        return
    raise InvalidInputError(f"not canonical JSON: a value of type {kind.__name__} at {path}")


def _check_key(key: object, path: str) -> None:
    if not isinstance(key, str):
        raise InvalidInputError(f"not canonical JSON: a non-string object key at {path}")
    # RFC 8785 sorts keys by UTF-16 code units, Python by code points; they agree inside
    # the Basic Multilingual Plane only.
    if not key.isascii() and max(key) > "\uffff":
        raise InvalidInputError(f"not canonical JSON: an object key outside the BMP at {path}")


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
        {
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
    )


def event_hash_of_texts(
    *,
    event_id: str,
    stream_id: str,
    stream_version: int,
    event_type: str,
    schema_version: int,
    data_text: str,
    meta_text: str,
    recorded_at_text: str,
    prev_hash: str,
) -> str:
    """Compute ``event_hash`` from the canonical texts of data and meta, already made.

    The record's canonical text is put together around them in the sorted key order, so
    data and meta are checked and serialised once each, not once more inside the record;
    the bytes hashed are those ``event_hash`` hashes. Names other than exact str and
    versions other than exact safe ints (a str subclass, a bool) go through the general
    serialiser, which checks them.
    """
    exact = (
        type(event_id) is str
        and type(stream_id) is str
        and type(event_type) is str
        and type(prev_hash) is str
        and type(recorded_at_text) is str
        and plain_safe_int(stream_version)
        and plain_safe_int(schema_version)
    )
    if not exact:
        record = {
            "event_id": event_id,
            "stream_id": stream_id,
            "stream_version": stream_version,
            "event_type": event_type,
            "schema_version": schema_version,
            # Canonical text reads back to values that serialise to the same text.
            "data": json.loads(data_text),
            "meta": json.loads(meta_text),
            "recorded_at": recorded_at_text,
            "prev_hash": prev_hash,
        }
        return record_object_hash(record)
    text = "".join(
        (
            '{"data":',
            data_text,
            ',"event_id":',
            _json_string(event_id),
            ',"event_type":',
            _json_string(event_type),
            ',"meta":',
            meta_text,
            ',"prev_hash":',
            _json_string(prev_hash),
            ',"recorded_at":',
            _json_string(recorded_at_text),
            ',"schema_version":',
            str(schema_version),
            ',"stream_id":',
            _json_string(stream_id),
            ',"stream_version":',
            str(stream_version),
            "}",
        )
    )
    return hashlib.sha256(LEAF_PREFIX + _utf8(text)).hexdigest()


def plain_safe_int(value: object) -> bool:
    """Tell whether a value is an exact int within the range canonical JSON holds."""
    return type(value) is int and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER


def record_object_hash(record: Mapping[str, Any]) -> str:
    """Hash the object an event's hash covers (see ``chain_record``)."""
    return hashlib.sha256(LEAF_PREFIX + canonical_json(record)).hexdigest()


def chain_record(record: RecordedEvent) -> dict[str, Any]:
    """Return the JSON object an event's hash covers: every field but position and hash."""
    return {
        "event_id": record.event_id,
        "stream_id": record.stream_id,
        "stream_version": record.stream_version,
        "event_type": record.event_type,
        "schema_version": record.schema_version,
        "data": record.data,
        "meta": record.meta,
        "recorded_at": format_timestamp(record.recorded_at),
        "prev_hash": record.prev_hash,
    }


def record_hash(record: RecordedEvent) -> str:
    """Recompute the hash a recorded event should carry."""
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
