"""The JSON bodies of the character routes, and the sheet command each becomes."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Path
from pydantic import Field

from diceledger.domain.dice.request import RollKind
from diceledger.domain.errors import InvalidInputError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.sheets import MAX_SHEET_VALUE
from diceledger.infra.app.roll_form import MAX_EXPRESSION, MAX_LABEL, MAX_TEXT
from diceledger.web.schemas import PLAIN, Body

CharacterName = Annotated[str, Path(description="The character's name", max_length=MAX_TEXT)]


class NewCharacter(Body):
    """POST /api/v1/sessions/{id}/characters: the caller's own, another's (GM), an NPC (GM)."""

    name: str = Field(min_length=1, max_length=MAX_TEXT, json_schema_extra=PLAIN)
    npc: bool = False
    owner: str | None = Field(
        default=None,
        max_length=MAX_TEXT,
        description="GM only: the member it belongs to",
        json_schema_extra=PLAIN,
    )

    def command(self, actor: str) -> cmd.CreateCharacter:
        """Return the typed command this body asks for."""
        if self.npc and self.owner is not None:
            raise InvalidInputError("an NPC belongs to the GMs: give npc or owner, not both")
        return cmd.CreateCharacter(self.name, None if self.npc else self.owner or actor)


class SheetValueBody(Body):
    """POST .../characters/{name}/attributes or .../qualities: one value of the sheet."""

    name: str = Field(min_length=1, max_length=MAX_LABEL, json_schema_extra=PLAIN)
    value: int = Field(ge=-MAX_SHEET_VALUE, le=MAX_SHEET_VALUE)
    label: str | None = Field(
        default=None, max_length=MAX_LABEL, description="attributes only", json_schema_extra=PLAIN
    )


class SavedRollBody(Body):
    """POST .../characters/{name}/saved-rolls: a named roll the character keeps."""

    name: str = Field(min_length=1, max_length=MAX_LABEL, json_schema_extra=PLAIN)
    kind: Literal["effect", "damage", "check"] = "effect"
    expression: str = Field(min_length=1, max_length=MAX_EXPRESSION, json_schema_extra=PLAIN)

    def command(self, character: str) -> cmd.SaveRoll:
        """Return the typed command this body asks for."""
        return cmd.SaveRoll(character, self.name, RollKind(self.kind), self.expression)


class SheetRightsBody(Body):
    """POST .../sheets (GM): who may change a player character's values."""

    sheets: Literal["player", "gm"]
