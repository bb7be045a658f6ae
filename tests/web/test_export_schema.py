"""A session played through the command line exports only lines the published schema allows."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from diceledger.infra.app.event_schema import events_schema
from tests.web.sessions import event_types, play_session


def test_every_line_of_a_played_sessions_exports_fits_the_schema(tmp_path: Path) -> None:
    played = play_session(tmp_path)
    validator = Draft202012Validator(events_schema())
    for path in (played.halfway, played.ended):
        lines = path.read_text(encoding="utf-8").splitlines()
        errors = [
            f"line {number}: {error.message}"
            for number, line in enumerate(lines, start=1)
            for error in validator.iter_errors(json.loads(line))
        ]
        assert errors == []
    assert {"DieRerolled", "DieExploded", "OpposedCheckTied"} <= set(event_types(played.ended))
