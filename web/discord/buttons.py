"""The custom ids of a roll's buttons: which roll, which die (none for accept), which turn.

A single roll's buttons read ``dl:reroll:{session}:{roll}:{die}`` and
``dl:accept:{session}:{roll}``. An opposed check's add ``:{side}:{round}``, the turn they
were shown for; ``dl:side:{session}:{roll}:{side}:{round}`` rolls the dice of a side whose
member rolls their own, with the server's dice. The application rerolls or accepts for
whichever side's turn it is (die indexes count within that side and round), so a button
whose turn has passed must be refused rather than obeyed: a GM who decides both sides, or
a click that lands after a tie, would otherwise act on the other side's dice or the next
round's. The turn travels in the command and is checked where the command is decided,
under the session's lock, so two clicks on one turn cannot both take it.
"""

from __future__ import annotations

from dataclasses import dataclass

from diceledger.domain.errors import NotFoundError
from diceledger.domain.session.commands import Turn

REROLL_PREFIX = "dl:reroll"
ACCEPT_PREFIX = "dl:accept"
SIDE_PREFIX = "dl:side"
ID_DIGITS = 16  # a roll number, a die index or a round in a button's custom id


@dataclass(frozen=True, slots=True)
class Pressed:
    """What a button asks for: a reroll of ``die``, or (``die`` None) an accept, or (``side``)
    the dice of a side whose member rolls their own."""

    session_id: str
    roll_id: int
    die: int | None = None
    turn: Turn | None = None  # of an opposed check: the turn the button was shown for
    side: bool = False

    @property
    def custom_id(self) -> str:
        """Return the id Discord sends back when the button is clicked."""
        prefix = ACCEPT_PREFIX if self.die is None else REROLL_PREFIX
        prefix = SIDE_PREFIX if self.side else prefix
        parts = [prefix, self.session_id, str(self.roll_id)]
        if self.die is not None:
            parts.append(str(self.die))
        if self.turn is not None:
            parts += [str(self.turn.side), str(self.turn.round)]
        return ":".join(parts)


def parse_custom_id(custom_id: str) -> Pressed:
    """Return what a button diceledger made asks for, or refuse any other id."""
    parts = custom_id.split(":")
    kind, numbers = ":".join(parts[:2]), parts[3:]
    plain = {REROLL_PREFIX: 2, ACCEPT_PREFIX: 1, SIDE_PREFIX: 1}.get(kind)
    numeric = all(n.isascii() and n.isdigit() and len(n) <= ID_DIGITS for n in numbers)
    if plain is None or len(numbers) not in (plain, plain + 2) or not numeric:
        raise NotFoundError("this button is not one of diceledger's")
    if kind == SIDE_PREFIX and len(numbers) == plain:
        raise NotFoundError("this button is not one of diceledger's")
    values = [int(n) for n in numbers]
    turn = None
    if len(values) > plain:
        side, round_ = values[plain:]
        if side not in (0, 1) or round_ < 1:
            raise NotFoundError("this button is not one of diceledger's")
        turn = Turn(side, round_)
    die = values[1] if kind == REROLL_PREFIX else None
    return Pressed(parts[2], values[0], die, turn, kind == SIDE_PREFIX)
