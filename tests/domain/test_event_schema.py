"""The schema generator walks event classes: types, optional fields, records, fingerprints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from diceledger.domain.event_schema import (
    data_schema,
    events_document,
    fingerprints,
    without_words,
)
from diceledger.domain.json import JsonObject
from diceledger.domain.session import event_docs
from diceledger.domain.session.event_docs import FieldDoc
from diceledger.domain.session.events import EVENT_TYPES, Amount
from tests.documents import at, object_at


@dataclass(frozen=True, slots=True)
class RollRevealed:
    """A toy event standing in for a real one."""

    schema_version: ClassVar[int] = 1
    roll_id: int
    by: str


@dataclass(frozen=True, slots=True)
class RollRevealedWithText(RollRevealed):
    """The same toy event with one more field."""

    note: str | None = None


def document_of(cls: type) -> JsonObject:
    return events_document({"RollRevealed": cls}, {})


def test_fields_without_a_default_are_required_and_others_carry_their_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = {**event_docs.EVENTS["RollRevealed"], "note": FieldDoc("A note.")}
    monkeypatch.setitem(event_docs.EVENTS, "RollRevealed", docs)
    schema = data_schema(document_of(RollRevealedWithText), "RollRevealed", 1)
    assert schema["required"] == ["roll_id", "by"]
    assert schema["additionalProperties"] is False
    assert schema["properties"] == {
        "roll_id": {"type": "integer", "minimum": 1, "description": docs["roll_id"].text},
        "by": {"type": "string", "description": docs["by"].text},
        "note": {"type": ["string", "null"], "description": "A note.", "default": None},
    }


def test_a_field_without_a_description_is_refused() -> None:
    with pytest.raises(TypeError, match="RollRevealedWithText.note has no description"):
        document_of(RollRevealedWithText)


def test_nested_records_become_shared_definitions_and_tuples_arrays() -> None:
    document = events_document(EVENT_TYPES, {})
    side = data_schema(document, "RollRequested", 5)
    assert set(object_at(side, "$defs")) == {"Amount", "CheckSide", "SheetValue"}
    assert at(side, "properties", "side", "$ref") == "#/$defs/CheckSide"
    assert at(side, "properties", "opponent", "anyOf") == [
        {"$ref": "#/$defs/CheckSide"},
        {"type": "null"},
    ]
    advantage = object_at(side, "$defs", "CheckSide", "properties", "advantage")
    assert advantage["type"] == "array" and advantage["default"] == []
    assert advantage["items"] == {"$ref": "#/$defs/Amount"}
    assert at(side, "$defs", "Amount", "description") == Amount.__doc__


def test_closed_sets_and_ranges_come_from_the_rules() -> None:
    document = events_document(EVENT_TYPES, {})
    die = object_at(data_schema(document, "DiceRolled", 1), "$defs", "DieRecord", "properties")
    assert at(die, "sides", "enum") == [4, 6, 8, 10, 12, 20]
    assert at(die, "reason", "enum") == ["initial", "explosion", "reroll"]
    word = object_at(die, "word")
    assert word == {**word, "type": ["integer", "null"], "maximum": 7}


def test_a_reworded_description_keeps_the_fingerprint_and_a_new_field_changes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = fingerprints(document_of(RollRevealed))["RollRevealed@1"]
    reworded = {"roll_id": FieldDoc("Other words.", minimum=1), "by": FieldDoc("Whoever.")}
    monkeypatch.setitem(event_docs.EVENTS, "RollRevealed", reworded)
    assert fingerprints(document_of(RollRevealed))["RollRevealed@1"] == before
    monkeypatch.setitem(event_docs.EVENTS, "RollRevealed", {**reworded, "note": FieldDoc("N.")})
    assert fingerprints(document_of(RollRevealedWithText))["RollRevealed@1"] != before


def test_a_tighter_constraint_changes_the_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    before = fingerprints(document_of(RollRevealed))["RollRevealed@1"]
    tighter = {**event_docs.EVENTS["RollRevealed"], "roll_id": FieldDoc("R.", minimum=2)}
    monkeypatch.setitem(event_docs.EVENTS, "RollRevealed", tighter)
    assert fingerprints(document_of(RollRevealed))["RollRevealed@1"] != before


def test_a_field_named_title_survives_the_removal_of_words() -> None:
    document = events_document(EVENT_TYPES, {})
    fingerprinted = fingerprints(document)
    assert "SessionStarted@2" in fingerprinted
    bare = without_words(data_schema(document, "SessionStarted", 2))
    assert "title" in object_at(bare, "properties")
    assert "description" not in object_at(bare, "properties", "title")
