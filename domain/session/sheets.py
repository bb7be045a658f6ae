"""Characters' sheets: what a session holds of them, and how a roll reads them (``@STR``).

A character belongs to a member (a player's own) or to the GMs (an NPC, ``owner`` None).
Its attributes (STR, DEX ...) hold MODs and its Qualities (Athletics ...) values; each entry
remembers the stream version of the event that set it, so a review can name its source.
A roll's ``@name`` is written out as the labelled number it stands for (``3[STR]``), which
the notation (R2) already reads; the request keeps both.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from diceledger.domain.errors import RollError

ATTRIBUTE_PATTERN = r"^[A-Z][A-Z0-9]{0,5}$"
QUALITY_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,39}$"
SAVED_ROLL_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 _'-]{0,39}$"
SAVED_KINDS = ("effect", "damage", "check")
# Far beyond any sheet's numbers, small enough that no total nears the notation's bounds.
MAX_SHEET_VALUE = 20
PLAYER_SHEETS = "player"
GM_SHEETS = "gm"
SHEET_RIGHTS = (PLAYER_SHEETS, GM_SHEETS)
_REFERENCE = re.compile(r"@([A-Za-z][A-Za-z0-9_]*)")


@dataclass
class Entry:
    """One value on a sheet and the stream version of the event that set it."""

    value: int
    set_at: int
    label: str | None = None


@dataclass
class SavedRoll:
    """A named roll of a character: what it rolls, and the version of the event that saved it."""

    kind: str
    expression: str
    set_at: int


@dataclass
class Character:
    """A character of the session: its owner (None: the GMs'), its values, whether retired."""

    name: str
    owner: str | None
    attributes: dict[str, Entry] = field(default_factory=dict)
    qualities: dict[str, Entry] = field(default_factory=dict)
    retired: bool = False
    saved: dict[str, SavedRoll] = field(default_factory=dict)

    @property
    def is_npc(self) -> bool:
        """Tell whether the GMs own it."""
        return self.owner is None

    def value_of(self, name: str) -> Entry | None:
        """Return the attribute or Quality called ``name``, if the sheet has it."""
        return self.attributes.get(name) or self.qualities.get(name)


@dataclass(frozen=True, slots=True)
class Reading:
    """A value read from a sheet for one ``@name``."""

    character: str
    name: str
    value: int
    set_at: int


def has_references(expression: str) -> bool:
    """Tell whether an expression reads a sheet (``@STR``)."""
    return _REFERENCE.search(expression) is not None


def without_references(expression: str, stand_in: str = "") -> str:
    """Return the expression with each ``@name`` replaced by ``stand_in`` (left out by default)."""
    return _REFERENCE.sub(stand_in, expression)


def written_out(
    expression: str, character: Character | None, whose: str
) -> tuple[str, list[Reading]]:
    """Return the expression with each ``@name`` replaced by its value, and what was read.

    A negative value is put in parentheses, so ``2*@STR`` keeps its meaning; a reference
    the sheet cannot answer is refused in one line.
    """
    readings: list[Reading] = []

    def replace(match: re.Match[str]) -> str:
        entry = _entry(character, match.group(1), whose)
        assert character is not None  # _entry refused a missing character
        readings.append(Reading(character.name, match.group(1), entry.value, entry.set_at))
        label = f"{abs(entry.value)}[{match.group(1)}]"
        return label if entry.value >= 0 else f"(-{label})"

    return _REFERENCE.sub(replace, expression), readings


def read_value(character: Character | None, name: str, whose: str) -> Reading:
    """Return one value of a sheet (a DC's MOD), refused in one line if it is not there."""
    entry = _entry(character, name, whose)
    assert character is not None
    return Reading(character.name, name, entry.value, entry.set_at)


def _entry(character: Character | None, name: str, whose: str) -> Entry:
    if character is None:
        raise RollError(f"{whose} has no character to read @{name} from")
    entry = character.value_of(name)
    if entry is None:
        raise RollError(f"{character.name}'s sheet has no attribute or Quality '{name}'")
    return entry


def find_character(
    characters: dict[str, Character], name: str, same: Callable[[str, str], bool]
) -> Character | None:
    """Return the character whose name is ``name`` or could be taken for it."""
    return next((c for c in characters.values() if same(c.name, name)), None)
