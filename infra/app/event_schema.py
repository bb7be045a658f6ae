"""The published schema of the session log, every event type at every version still read: a
query any face answers (the API serves it, the docs commit it)."""

from __future__ import annotations

import json
from functools import cache

from diceledger.domain.event_schema import events_document, fingerprints
from diceledger.domain.json import JsonObject
from diceledger.domain.session.events import EVENT_TYPES
from diceledger.infra.codec.old_versions import OLDER_SHAPES

MEDIA_TYPE = "application/schema+json"


def events_schema() -> JsonObject:
    """Return the JSON Schema of an export line (docs/schema/events.schema.json)."""
    parsed: JsonObject = json.loads(events_schema_text())
    return parsed  # a fresh copy each time: callers may change theirs


@cache
def events_schema_text() -> str:
    """Return the schema as the text the docs commit and the server serves."""
    document = events_document(EVENT_TYPES, OLDER_SHAPES)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def schema_fingerprints() -> dict[str, str]:
    """Return "EventType@version" -> fingerprint of every published data schema."""
    return fingerprints(events_schema())
