"""Write the published schema and record new schema versions' fingerprints in docs/schema/.

Run ``python -m tests.infra.schema_files`` after changing an event class. It rewrites
events.schema.json, adds a fingerprint for each new "EventType@version", and refuses to
change a recorded one: a version's shape is fixed once released, so a changed shape needs a
new schema_version (and an upcaster from the old one).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from diceledger.infra.app.event_schema import events_schema_text, schema_fingerprints

FOLDER = Path(__file__).resolve().parents[2] / "docs" / "schema"
SCHEMA_FILE = FOLDER / "events.schema.json"
VERSIONS_FILE = FOLDER / "versions.json"


def recorded_fingerprints() -> dict[str, str]:
    """Return the committed fingerprints ("EventType@version" -> SHA-256)."""
    recorded: dict[str, str] = json.loads(VERSIONS_FILE.read_text())
    return recorded


def changed_versions(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """Return the versions whose shape differs from the recorded one."""
    return sorted(key for key, value in current.items() if recorded.get(key, value) != value)


def main() -> int:
    """Write the schema and the new fingerprints; exit 1 if a recorded version changed."""
    current = schema_fingerprints()
    recorded = recorded_fingerprints() if VERSIONS_FILE.exists() else {}
    changed = changed_versions(recorded, current)
    if changed:
        print(f"changed without a new schema_version: {', '.join(changed)}", file=sys.stderr)
        return 1
    FOLDER.mkdir(parents=True, exist_ok=True)
    SCHEMA_FILE.write_text(events_schema_text())
    merged = dict(sorted({**recorded, **current}.items()))
    VERSIONS_FILE.write_text(json.dumps(merged, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
