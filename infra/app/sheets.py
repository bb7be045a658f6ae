"""The session's characters as every member sees them, and what a sheet command appended.

Sheets are open at the table: every member of a session sees every character's values
(a hidden roll hides its dice, never the sheet it read).
"""

from __future__ import annotations

from dataclasses import dataclass

from diceledger.domain.dice.request import RollKind
from diceledger.domain.json import JsonObject
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.sheets import Character, Entry
from diceledger.domain.session.state import SessionState


@dataclass(frozen=True, slots=True)
class SheetEntryView:
    """One attribute or Quality: its value, label, and the version of the event that set it."""

    name: str
    value: int
    label: str | None
    set_at: int

    @classmethod
    def of(cls, name: str, entry: Entry) -> SheetEntryView:
        """Copy one entry of a sheet."""
        return cls(name, entry.value, entry.label, entry.set_at)

    @property
    def view(self) -> JsonObject:
        """Return the entry as data."""
        return {"name": self.name, "value": self.value, "label": self.label, "set_at": self.set_at}


@dataclass(frozen=True, slots=True)
class SavedRollView:
    """A named roll a character keeps: its kind, its expression as typed, when it was saved."""

    name: str
    kind: str
    expression: str
    set_at: int

    @property
    def view(self) -> JsonObject:
        """Return the saved roll as data."""
        return {
            "name": self.name,
            "kind": self.kind,
            "expression": self.expression,
            "set_at": self.set_at,
        }


@dataclass(frozen=True, slots=True)
class CharacterView:
    """A character's sheet: owner (None: an NPC of the GMs), attributes, Qualities."""

    name: str
    owner: str | None
    retired: bool
    attributes: tuple[SheetEntryView, ...]
    qualities: tuple[SheetEntryView, ...]
    saved: tuple[SavedRollView, ...] = ()

    @classmethod
    def of(cls, character: Character) -> CharacterView:
        """Copy a character of the session state."""
        return cls(
            character.name,
            character.owner,
            character.retired,
            tuple(SheetEntryView.of(n, e) for n, e in sorted(character.attributes.items())),
            tuple(SheetEntryView.of(n, e) for n, e in sorted(character.qualities.items())),
            tuple(
                SavedRollView(name, saved.kind, saved.expression, saved.set_at)
                for name, saved in sorted(character.saved.items())
            ),
        )

    @property
    def view(self) -> JsonObject:
        """Return the character as data (the --json and API shape)."""
        return {
            "name": self.name,
            "owner": self.owner,
            "npc": self.owner is None,
            "retired": self.retired,
            "attributes": [entry.view for entry in self.attributes],
            "qualities": [entry.view for entry in self.qualities],
            "saved_rolls": [saved.view for saved in self.saved],
        }


@dataclass(frozen=True, slots=True)
class CharactersView:
    """Every character of a session, and who may change a player character's values."""

    session_id: str
    sheets: str  # "player" | "gm"
    characters: tuple[CharacterView, ...]

    @classmethod
    def of(cls, state: SessionState) -> CharactersView:
        """Snapshot the sheets of ``state``."""
        characters = tuple(CharacterView.of(c) for c in state.characters.values())
        return cls(state.session_id or "", state.sheets, characters)

    def carried(self) -> tuple[cmd.CarriedCommand, ...]:
        """Return the commands that set these sheets up again in a campaign's next session.

        A retired character stays behind; the others keep their owner, values and saved
        rolls (each value's source event is then the next session's own).
        """
        commands: list[cmd.CarriedCommand] = []
        for c in self.characters:
            if c.retired:
                continue
            commands.append(cmd.CreateCharacter(c.name, c.owner))
            commands += (cmd.SetAttribute(c.name, a.name, a.value, a.label) for a in c.attributes)
            commands += (cmd.SetQuality(c.name, q.name, q.value) for q in c.qualities)
            commands += (
                cmd.SaveRoll(c.name, r.name, RollKind(r.kind), r.expression) for r in c.saved
            )
        return tuple(commands)

    def played_by(self, member: str) -> CharacterView | None:
        """Return the character ``member`` plays now, if any."""
        return next((c for c in self.characters if c.owner == member and not c.retired), None)

    def find(self, name: str) -> CharacterView | None:
        """Return the character called ``name``, if the session has it."""
        return next((c for c in self.characters if c.name == name), None)

    @property
    def view(self) -> JsonObject:
        """Return the sheets as data."""
        return {
            "session_id": self.session_id,
            "sheets": self.sheets,
            "characters": [c.view for c in self.characters],
        }


@dataclass(frozen=True, slots=True)
class SheetResult:
    """What a sheet command left: the session's sheets after it, and what it appended."""

    sheets: CharactersView
    character: CharacterView | None  # the character changed; None for the sheets setting
    appended: tuple[RecordedEvent, ...]
    checkpoint: str | None = None

    @property
    def view(self) -> JsonObject:
        """Return the result as data: the character changed (or the setting) and the checkpoint."""
        body: JsonObject = {"session_id": self.sheets.session_id, "sheets": self.sheets.sheets}
        if self.character is not None:
            body["character"] = self.character.view
        body["checkpoint"] = self.checkpoint
        return body
