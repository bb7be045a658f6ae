"""Which character each side of a roll counts for, in the per-character statistics.

A side counts for a character when it read that character's sheet (a ``@name`` of that
side's expression), or else when it was rolled for a member who played that character at
the request (their own, not retired), or for an NPC under that NPC's own name. A DC read
from the origin's sheet (``--dc @WIS``) is the origin's number, not a side's roll: it makes
the roll count for nobody's character. docs/statistics.md says so too.
"""

from __future__ import annotations

from diceledger.domain.session import events as ev
from diceledger.domain.session.state import SessionState


def played_characters(state: SessionState, request: ev.RollRequested) -> dict[str, str]:
    """Return side name -> character for the sides that count for one, on the state
    just before the request."""
    sides = [request.on_behalf_of]
    if request.opponent is not None:
        sides.append(request.opponent.name)
    read = {ref.side: ref.character for ref in request.references if ref.use == "roll"}
    played: dict[str, str] = {}
    for index, name in enumerate(sides):
        character = read.get(index)
        if character is None:
            found = state.character_of(name)
            character = None if found is None else found.name
        if character is not None:
            played[name] = character
    return played
