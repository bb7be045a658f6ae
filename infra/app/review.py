"""A GM's dispute review of one roll: its dice, provenance, steps and proofs, checked again.

The review reads the session's records, verifies them as ``verify`` does
(``infra.app.verification``), and shows one roll as the GM may see it, with the sheet
values its request read.
"""

from __future__ import annotations

from diceledger.domain.errors import NotFoundError, unknown_session
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session.events import RollRequested
from diceledger.domain.session.guards import require_gm
from diceledger.domain.session.state import replay
from diceledger.domain.session.visibility import may_see
from diceledger.domain.verification.review import review
from diceledger.domain.verification.sheet_review import Setter, sheet_rows
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.codec.events import from_record
from diceledger.infra.store.port import EventStore


def review_roll(store: EventStore, session_id: str, roll_id: int, actor: str) -> JsonObject:
    """Return the GM's review of one roll: dice, provenance, steps and proofs."""
    records = list(store.read_stream(session_id))
    report = verify_records(records, from_record)
    if report.events == 0:
        raise unknown_session(session_id)
    state = replay((r.stream_version, from_record(r)) for r in records)
    require_gm(state, actor, "review a roll")
    roll = state.rolls.get(roll_id)
    if roll is None or not may_see(state, roll, actor):  # a player's self roll, not yet shown
        raise NotFoundError(f"no roll {roll_id} in session '{session_id}'")
    refs = [
        (r.position, r.stream_version, r.event_type, r.hash)
        for r in records
        if r.data.get("roll_id") == roll_id
    ]
    return review(state, roll, refs, report.as_dict(), _sheet(records, roll.request))


def _sheet(records: list[RecordedEvent], request: RollRequested) -> list[JsonValue]:
    """Return the sheet values the request read, against the sheet as replayed before it."""
    if not request.references:
        return []
    at = next(
        r.stream_version
        for r in records
        if r.event_type == "RollRequested" and r.data.get("roll_id") == request.roll_id
    )
    before = replay((r.stream_version, from_record(r)) for r in records[: at - 1])
    wanted = {ref.set_at for ref in request.references}
    setters = {
        r.stream_version: Setter(r.position, r.event_type, str(r.data.get("by", "")))
        for r in records
        if r.stream_version in wanted
    }
    return sheet_rows(request, before, setters)
