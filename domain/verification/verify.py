"""Verify a session's log: chain, rules, nonces, commitments, every die and every outcome.

One pass over the records in stream order checks the hash chain, folds the session, and
checks each event against the state before it: nonces gapless and never reused (a request,
a reroll command, and an accept or end that rolls an opposed check's fresh round each take
the next), dice drawn only from the committed, not yet revealed epoch, revealed seeds
matching their commitments, every total and outcome equal to resolving the roll again
from its dice.
Each command is also decided again from the state before it (``conformance``): the log
must hold exactly the events an honest run of the rules gives, so a player who makes
themself GM, or a reroll past the allowance, is named even under a rebuilt hash chain.
At the end, every seeded die of a revealed epoch is derived again from its seed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from diceledger.domain.dice.request import Target
from diceledger.domain.dice.sources import commitment
from diceledger.domain.errors import DiceledgerError, RollError
from diceledger.domain.hashchain import ChainHead, ChainVerifier
from diceledger.domain.records import ExportedEvent, RecordedEvent, SealedEvent
from diceledger.domain.session import editions
from diceledger.domain.session import events as ev
from diceledger.domain.session.state import Roll, SessionState, evolve
from diceledger.domain.verification.conformance import Matched, match_command
from diceledger.domain.verification.derivation import matches, rederive
from diceledger.domain.verification.outcomes import check_roll
from diceledger.domain.verification.report import Failure, Report

Decoder = Callable[[RecordedEvent], ev.Event]
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class _SeededDie:
    position: int
    version: int
    roll_id: int
    die: ev.DieRecord
    client_seed: str
    salt: str


def _dice_of(event: ev.Event) -> tuple[ev.DieRecord, ...]:
    if isinstance(event, ev.DiceRolled):
        return event.dice
    if isinstance(event, ev.DieExploded | ev.DieRerolled):
        return (event.die,)
    return ()


class _Verifier:
    def __init__(self, decode: Decoder) -> None:
        self.decode = decode
        self.chain = ChainVerifier()
        self.chain_broken = False
        self.stopped = False
        self.state = SessionState()
        self.report = Report()
        self.last_nonce = 0
        self.nonce_use: dict[int, tuple[int, str]] = {}
        self.draw_nonce: dict[int, int] = {}
        self.seeded: dict[int, list[_SeededDie]] = {}
        self.die_positions: dict[int, list[tuple[int, int]]] = {}
        self.bad_seeds: set[int] = set()
        self.event_ids: set[str] = set()
        # Events decoded but not yet applied: the command they belong to is still open.
        # A sealed event waits in its place (None): the end may close a hidden roll.
        self.pending: list[tuple[ExportedEvent, ev.Event | None]] = []
        self.rules_checked = True
        # Sealed events since a visible command last took a nonce: each may have taken one.
        self.sealed_nonces = 0

    def fail(self, record: ExportedEvent, reason: str) -> None:
        self.report.failures.append(Failure(record.position, record.stream_version, reason))

    def feed(self, record: ExportedEvent) -> None:
        self.report.events += 1
        if self.report.session_id is None:
            self.report.session_id = record.stream_id
        elif record.stream_id != self.report.session_id:
            self.fail(record, f"an event of another session ('{record.stream_id}')")
            return
        if isinstance(record, SealedEvent):
            self.feed_sealed(record)
            return
        if record.event_id in self.event_ids:
            self.fail(record, f"event id {record.event_id} appears twice in the log")
        self.event_ids.add(record.event_id)
        if not self.chain_broken:
            problem = self.chain.check(record)
            if problem is not None:
                self.fail(record, problem.reason)
                self.chain_broken = True
        if self.stopped:
            return
        try:
            event = self.decode(record)
        except DiceledgerError as error:
            self.drain(final=True)  # the log ends here for the checks: finish what came before
            self.fail(record, f"{record.event_type} cannot follow the log before it: {error}")
            self.stopped = True
            return
        self.pending.append((record, event))
        self.drain(final=False)

    def feed_sealed(self, sealed: SealedEvent) -> None:
        """Check a sealed event's link in the chain; its content waits for the roll's reveal."""
        self.report.sealed_events += 1
        if not self.chain_broken:
            head = self.chain.head(sealed.stream_id)
            reason = None
            if sealed.stream_version != head.version + 1:
                reason = f"version {sealed.stream_version} follows version {head.version}"
            elif sealed.prev_hash != head.hash:
                reason = "prev_hash does not match the previous event's hash"
            elif len(sealed.hash) != 64 or not _HEX.issuperset(sealed.hash):
                reason = "a sealed event's hash is not 64 lowercase hex digits"
            if reason is not None:
                self.fail(sealed, reason)
                self.chain_broken = True
            else:  # the next event must link through the sealed hash
                self.chain = ChainVerifier({sealed.stream_id: ChainHead(*_link(sealed))})
        if not self.stopped:
            self.pending.append((sealed, None))
            self.drain(final=False)

    def drain(self, final: bool) -> None:
        """Apply the pending events whose command is complete, checked against the rules.

        Sealed events are left out of the commands decided again: the rules are checked on
        the session as a player sees it, where a hidden roll is only a number.
        """
        while self.pending and not self.stopped:
            if self.pending[0][1] is None:
                self.apply_sealed(self.pending.pop(0)[0])
                continue
            shown = [(at, e) for at, (_, e) in enumerate(self.pending) if e is not None]
            count, violation = len(self.pending), None
            if self.rules_checked:
                events = [event for _, event in shown]
                self._skip_sealed_nonces(events)
                inside = sum(1 for _, event in self.pending[shown[0][0] :] if event is None)
                if inside:  # the end closing a hidden roll between visible ones
                    events = _renumbered(events, self.state.next_nonce, inside)
                outcome = match_command(self.state, events, final)
                if outcome is None:
                    return  # the command goes on past the events read so far
                if isinstance(outcome, Matched):
                    count = shown[outcome.count - 1][0] + 1
                else:
                    violation = outcome
            for record, event in self.pending[:count]:
                if event is None:
                    self.apply_sealed(record)
                else:
                    assert isinstance(record, RecordedEvent)
                    self.apply(record, event)
            if violation is not None:
                # The first violation is named; past it, the state is no honest one to
                # decide against, so the other checks go on alone.
                self.fail(self.pending[shown[violation.at][0]][0], violation.reason)
                self.rules_checked = False
            del self.pending[:count]

    def _skip_sealed_nonces(self, events: list[ev.Event]) -> None:
        """Let a command take its nonce past those the sealed events before it may have taken.

        A hidden roll's request and each reroll command of it take a nonce the player
        cannot see; each wrote at least one event, so the sealed events bound the gap.
        """
        # The sealed events inside the command (the end closing a hidden roll) count too.
        slack = self.sealed_nonces + sum(1 for _, event in self.pending if event is None)
        if not slack:
            return
        taken = next((n for n in map(_nonce_of, events) if n is not None), None)
        if taken is None or not self.state.next_nonce < taken:
            return
        if taken <= self.state.next_nonce + slack:
            self.state.next_nonce = taken
            self.last_nonce = taken - 1

    def apply_sealed(self, sealed: ExportedEvent) -> None:
        """Fold a sealed event: its version, and its roll as a number a player may not see."""
        assert isinstance(sealed, SealedEvent)
        if self.stopped:
            return
        rolls = self.state.rolls
        known = rolls.get(sealed.roll_id)
        if known is None and sealed.roll_id == len(rolls) + 1:
            rolls[sealed.roll_id] = _sealed_roll(sealed.roll_id)
            self.report.sealed_rolls.append(sealed.roll_id)
        elif known is None or sealed.roll_id not in self.report.sealed_rolls:
            shown = "is shown in full" if known is not None else "is not the next roll"
            self.fail(sealed, f"a sealed event of roll {sealed.roll_id}, which {shown}")
            self.stopped = True
            return
        self.state.version = sealed.stream_version
        self.sealed_nonces += 1

    def apply(self, record: RecordedEvent, event: ev.Event) -> None:
        """Check one event against the state before it, fold it, and check what it closes."""
        if self.stopped:
            return
        try:
            self.before(record, event)
            evolve(self.state, record.stream_version, event)
        except (DiceledgerError, LookupError, ValueError, ArithmeticError) as error:
            self.fail(record, f"{record.event_type} cannot follow the log before it: {error}")
            self.stopped = True
            return
        if _nonce_of(event) is not None:
            self.sealed_nonces = 0  # the nonces sealed events may have taken lie behind it
        self.after(record, event)

    def before(self, record: RecordedEvent, event: ev.Event) -> None:
        """Check an event against the state it is applied to."""
        if isinstance(event, ev.RollRequested):
            self._request(record, event)
        elif isinstance(event, ev.DieRerolled):
            self._reroll_nonce(record, event)
        elif isinstance(event, ev.DiceRolled):
            self._round_nonce(record, event)
        elif isinstance(event, ev.SeedRevealed):
            epoch = self.state.epochs[event.epoch - 1]
            if commitment(bytes.fromhex(event.seed)) != epoch.commitment:
                self.bad_seeds.add(event.epoch)
                self.fail(
                    record,
                    f"the revealed seed of epoch {event.epoch} does not match its commitment",
                )
        elif isinstance(event, ev.SeedCommitted) and event.epoch != len(self.state.epochs) + 1:
            self.fail(record, f"epoch {event.epoch} committed out of order")
        elif isinstance(event, ev.SessionStarted) and event.session_id != record.stream_id:
            self.fail(record, f"the session calls itself '{event.session_id}' in another stream")
        self._dice(record, event)

    def _request(self, record: RecordedEvent, request: ev.RollRequested) -> None:
        if not self._next_nonce(request.nonce):
            self.fail(
                record,
                f"roll {request.roll_id} took nonce {request.nonce}, "
                f"the next was {self.last_nonce + 1}",
            )
        self.last_nonce = max(self.last_nonce, request.nonce)
        self.nonce_use[request.nonce] = (request.roll_id, "request")
        self.draw_nonce[request.roll_id] = request.nonce
        if not self._drawable(request.epoch):
            self.fail(
                record,
                f"roll {request.roll_id} names epoch {request.epoch}, "
                "not the committed unrevealed one",
            )
        member = self.state.members.get(request.roller)
        if member is not None and request.client_seed != member.client_seed:
            self.fail(
                record, f"roll {request.roll_id} used a client seed that is not {request.roller}'s"
            )
        if request.target is not None:
            try:  # the same rule that refused such a request when it was made (R4)
                Target(request.target, request.dc_modifier, request.dc_label)
            except RollError as error:
                self.fail(record, f"roll {request.roll_id}: {error}")

    def _next_nonce(self, nonce: int) -> bool:
        """Tell whether ``nonce`` is the next, or past only those sealed events may have taken."""
        return self.last_nonce < nonce <= self.last_nonce + 1 + self.sealed_nonces

    def _drawable(self, epoch: int | None) -> bool:
        """Tell whether dice may come from ``epoch``: the committed, not yet revealed one."""
        current = self.state.epoch
        return epoch == current.number and current.seed is None

    def _reroll_nonce(self, record: RecordedEvent, event: ev.DieRerolled) -> None:
        nonce = event.die.nonce
        same_command = nonce == self.last_nonce and self.nonce_use.get(nonce) == (
            event.roll_id,
            "reroll",
        )
        if not same_command and not self._next_nonce(nonce):
            self.fail(
                record,
                f"a reroll of roll {event.roll_id} took nonce {nonce}, "
                f"the next was {self.last_nonce + 1}",
            )
        self.last_nonce = max(self.last_nonce, nonce)
        self.nonce_use[nonce] = (event.roll_id, "reroll")
        self.draw_nonce[event.roll_id] = nonce

    def _round_nonce(self, record: RecordedEvent, event: ev.DiceRolled) -> None:
        """Take the nonce of a command after the request that rolls a fresh round or a side.

        An accept (or the end) whose opposed check then ties draws the next round under
        the next nonce; a request or reroll draws it under its own, already taken. A side
        whose member rolls their own dice draws them under the nonce of their command.
        """
        if (event.side, event.round) == (0, 1) or not event.dice:
            return
        nonce = event.dice[0].nonce
        if nonce == self.draw_nonce.get(event.roll_id):
            return
        if not self._next_nonce(nonce):
            self.fail(
                record,
                f"round {event.round} of roll {event.roll_id} took nonce {nonce}, "
                f"the next was {self.last_nonce + 1}",
            )
        self.last_nonce = max(self.last_nonce, nonce)
        self.nonce_use[nonce] = (event.roll_id, "round")
        self.draw_nonce[event.roll_id] = nonce

    def _dice(self, record: RecordedEvent, event: ev.Event) -> None:
        dice = _dice_of(event)
        if not dice:
            return
        roll_id = ev.roll_id_of(event)
        assert roll_id is not None  # only roll events carry dice
        request = self.state.rolls[roll_id].request
        for die in dice:
            self.die_positions.setdefault(roll_id, []).append(
                (record.position, record.stream_version)
            )
            if die.nonce != self.draw_nonce.get(roll_id):
                self.fail(record, f"roll {roll_id} die {die.index} claims nonce {die.nonce}")
            if die.source == "manual":
                self.report.manual_dice += 1
                continue
            if not self._drawable(die.epoch):
                self.fail(
                    record,
                    f"roll {roll_id} die {die.index} claims epoch {die.epoch}, "
                    "not the committed unrevealed one",
                )
            entry = _SeededDie(
                record.position,
                record.stream_version,
                roll_id,
                die,
                request.client_seed,
                request.salt,
            )
            self.seeded.setdefault(die.nonce, []).append(entry)

    def after(self, record: RecordedEvent, event: ev.Event) -> None:
        """Check a resolution against resolving the roll again."""
        if isinstance(event, ev.RollResolved | ev.CheckResolved):
            roll = self.state.rolls[event.roll_id]
            for reason in check_roll(roll):
                self.fail(record, reason)

    def finish(self) -> Report:
        self.drain(final=True)
        report = self.report
        report.rolls = len(self.state.rolls)
        if report.events == 0:
            report.failures.append(Failure(0, 0, "there are no events: nothing to verify"))
        if not self.stopped:
            self._open_rolls()
        self._derive()
        return report

    def _open_rolls(self) -> None:
        for roll in self.state.rolls.values():
            if roll.resolution is None and roll.roll_id not in self.report.sealed_rolls:
                for reason in check_roll(roll):
                    position, version = self.die_positions.get(roll.roll_id, [(0, 0)])[-1]
                    self.report.failures.append(Failure(position, version, reason))

    def _derive(self) -> None:
        used: set[int] = set()
        for nonce, dice in self.seeded.items():
            epoch_number = dice[0].die.epoch
            if epoch_number is None or not 1 <= epoch_number <= len(self.state.epochs):
                continue
            used.add(epoch_number)
            epoch = self.state.epochs[epoch_number - 1]
            if epoch_number in self.bad_seeds:
                continue  # already failed at its reveal; deriving from it proves nothing
            if epoch.seed is None:
                self.report.unverifiable_dice += len(dice)
                continue
            first = dice[0]
            draws = rederive(
                bytes.fromhex(epoch.seed),
                self.report.session_id or "",
                nonce,
                first.client_seed,
                first.salt,
                [entry.die for entry in dice],
            )
            for entry, draw in zip(dice, draws, strict=True):
                die = entry.die
                if not matches(draw, die):
                    self.report.failures.append(
                        Failure(
                            entry.position,
                            entry.version,
                            f"roll {entry.roll_id} die {die.index}: "
                            f"the epoch {epoch_number} seed gives {draw.face} "
                            f"(block {draw.block}, word {draw.word}), the log says "
                            f"{die.face} (block {die.block}, word {die.word})",
                        )
                    )
                    break
                self.report.dice_verified += 1
        self.report.unrevealed_epochs = sorted(
            n for n in used if self.state.epochs[n - 1].seed is None
        )


def _link(sealed: SealedEvent) -> tuple[int, str]:
    return sealed.stream_version, sealed.hash


def _nonce_of(event: ev.Event) -> int | None:
    """Return the nonce an event draws under, if it draws at all."""
    if isinstance(event, ev.RollRequested):
        return event.nonce
    if isinstance(event, ev.DieRerolled):
        return event.die.nonce
    if isinstance(event, ev.DiceRolled) and event.dice:
        return event.dice[0].nonce
    return None


def _renumbered(events: list[ev.Event], first: int, slack: int) -> list[ev.Event]:
    """Return a command's visible events with the nonces sealed events took between them
    closed up, as deciding on the visible session alone numbers them (each by at most
    ``slack``, the sealed events inside the command)."""
    taken: dict[int, int] = {}

    def moved(nonce: int) -> int:
        if nonce < first:
            return nonce
        closed = taken.setdefault(nonce, first + len(taken))
        return closed if nonce - closed <= slack else nonce

    def die(record: ev.DieRecord) -> ev.DieRecord:
        return dataclasses.replace(record, nonce=moved(record.nonce))

    out: list[ev.Event] = []
    for event in events:
        if isinstance(event, ev.DiceRolled):
            event = dataclasses.replace(event, dice=tuple(die(d) for d in event.dice))
        elif isinstance(event, ev.DieExploded | ev.DieRerolled):
            event = dataclasses.replace(event, die=die(event.die))
        elif isinstance(event, ev.RollRequested):
            event = dataclasses.replace(event, nonce=moved(event.nonce))
        out.append(event)
    return out


def _sealed_roll(roll_id: int) -> Roll:
    """Return what a player's session holds of a hidden roll: its number, closed.

    Closed (a resolution of nothing), so that deciding the end again closes only the rolls
    the player sees; the end's events for a hidden roll are sealed too. Its edition is
    unknown, so the first: it holds no later request to any edition.
    """
    nothing = ev.CheckSide("", "")
    request = ev.RollRequested(
        roll_id=roll_id, nonce=0, epoch=0, roller="", on_behalf_of="", kind="effect",
        side=nothing, median=False, exploding=False, target=None, dc_modifier=None,
        dc_label=None, against=None, opponent=None, action_id="", rerolls_granted=0,
        reroll_scope="effect", mode="blind", label=None, client_seed="", salt="", manual=False,
        replaces=None, rules_edition=editions.FIRST,
    )  # fmt: skip
    return Roll(request, resolution=ev.RollResolved(roll_id, 0, ""))


def verify_records(records: Iterable[ExportedEvent], decode: Decoder) -> Report:
    """Verify one session's records (in stream order) and return the report."""
    verifier = _Verifier(decode)
    for record in records:
        verifier.feed(record)
    return verifier.finish()


def verify_each_session(records: Iterable[ExportedEvent], decode: Decoder) -> list[Report]:
    """Verify the records of one or more sessions (each in stream order); one report each."""
    verifiers: dict[str, _Verifier] = {}
    for record in records:
        verifier = verifiers.get(record.stream_id)
        if verifier is None:
            verifier = verifiers[record.stream_id] = _Verifier(decode)
        verifier.feed(record)
    return [verifier.finish() for verifier in verifiers.values()]
