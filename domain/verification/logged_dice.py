"""A command's recorded dice handed back as a dice source, for deciding it again.

A command's dice are the die records of its roll's events that follow its first event,
up to the first event of anything else. ``dice_factories`` returns the two ways decide
asks for dice (seeded, by nonce; typed in) over those records, each checked against the
size the rules ask for. When the events read so far end inside the run, a draw past them
raises NeedMore: the caller reads on and tries again.
"""

from __future__ import annotations

from collections.abc import Sequence

from diceledger.domain.dice.sources import DiceSource, Draw, OneAtATime, Provenance
from diceledger.domain.errors import DiceSourceError
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import DiceFactory, TypedFactory

ROLL_EVENTS = (
    ev.DiceRolled,
    ev.DieExploded,
    ev.DieRerolled,
    ev.OpposedCheckTied,
    ev.RollResolved,
    ev.CheckResolved,
)

Run = list[tuple[int, ev.DieRecord]]  # (index of the event among those read, die)


class NeedMore(Exception):
    """The events read so far end inside the command being matched."""


class LoggedDiceError(DiceSourceError):
    """The log's dice are not the ones the rules draw; ``at`` is the event showing it."""

    def __init__(self, at: int, message: str) -> None:
        super().__init__(message)
        self.at = at


def roll_run(
    upcoming: Sequence[ev.Event], start: int, roll_id: int, final: bool
) -> tuple[Run, bool]:
    """Return the dice of the roll's events from ``start`` on, and whether the run ended."""
    run: Run = []
    for at in range(start, len(upcoming)):
        event = upcoming[at]
        if not isinstance(event, ROLL_EVENTS) or event.roll_id != roll_id:
            return run, True
        if isinstance(event, ev.DiceRolled):
            run += [(at, die) for die in event.dice]
        elif isinstance(event, ev.DieExploded | ev.DieRerolled):
            run.append((at, event.die))
    return run, final


class LoggedDice(OneAtATime):
    """Hand back a command's recorded dice in order, as a dice source."""

    def __init__(self, run: Run, complete: bool, missing_at: int, what: str) -> None:
        # ``missing_at``: where a die the log lacks should have been (after its last die).
        self._run, self._complete, self._missing_at, self._what = run, complete, missing_at, what
        self._used = 0

    def draw(self, sides: int) -> Draw:
        """Return the next recorded die; it must be the size the rules ask for."""
        if self._used >= len(self._run):
            if not self._complete:
                raise NeedMore
            raise LoggedDiceError(
                self._missing_at,
                f"the rules draw die {self._used + 1} (a d{sides}) {self._what}, the log has none",
            )
        at, record = self._run[self._used]
        if record.sides != sides:
            raise LoggedDiceError(
                at,
                f"die {record.index} is recorded as a d{record.sides}, the rules ask for "
                f"a d{sides}",
            )
        if not 1 <= record.face <= sides:
            raise LoggedDiceError(at, f"die {record.index} shows {record.face}, not on a d{sides}")
        self._used += 1
        return Draw(sides, record.face, Provenance(record.source), record.block, record.word)


def every_roll_run(upcoming: Sequence[ev.Event], final: bool) -> tuple[Run, bool]:
    """Return the dice of every roll up to the first event that belongs to no roll.

    The end is the one command that may draw dice for several rolls (the fresh rounds of
    tied opposed checks), each under a nonce of its own.
    """
    run: Run = []
    for at, event in enumerate(upcoming):
        if ev.roll_id_of(event) is None:
            return run, True
        if isinstance(event, ev.DiceRolled):
            run += [(at, die) for die in event.dice]
        elif isinstance(event, ev.DieExploded | ev.DieRerolled):
            run.append((at, event.die))
    return run, final


def dice_factories(
    upcoming: Sequence[ev.Event], start: int, roll_id: int | None, final: bool
) -> tuple[DiceFactory, TypedFactory]:
    """Return the seeded and the typed-in dice of the roll's run from ``start``.

    Without a roll, the dice of every roll's events up to the first session-wide event.
    """
    if roll_id is None:
        run, complete = every_roll_run(upcoming, final)
    else:
        run, complete = roll_run(upcoming, start, roll_id, final)
    # A die the rules draw past the log's is missing right after the last one it has: name
    # that event, as the chain check names the gap an event cut from the middle leaves
    # (with no die at all, the command's first event).
    missing_at = min(run[-1][0] + 1, len(upcoming) - 1) if run else 0

    def seeded(nonce: int, client_seed: str, salt: str) -> DiceSource:
        dice = [(at, d) for at, d in run if d.source == Provenance.SEEDED and d.nonce == nonce]
        return LoggedDice(dice, complete, missing_at, f"under nonce {nonce}")

    def typed(faces: tuple[int, ...]) -> DiceSource:
        dice = [(at, d) for at, d in run if d.source == Provenance.MANUAL]
        return LoggedDice(dice, complete, missing_at, "typed in")

    return seeded, typed
