"""The session service: load a stream, decide, append, and retry on a conflict.

Every state-changing path goes through ``SessionService.execute``. A refused command
raises before anything is appended; a conflict (another writer appended first) reloads
the stream and decides again, a bounded number of times.
"""

from __future__ import annotations

import functools
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from diceledger.domain import __version__
from diceledger.domain.checkpoint import SignedCheckpoint
from diceledger.domain.dice.sources import DiceSource, SeedKey, commitment
from diceledger.domain.errors import ConcurrencyError, CorruptLogError, unknown_session
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.context import Context, DiceFactory
from diceledger.domain.session.decide import decide
from diceledger.domain.session.events import Event
from diceledger.domain.session.state import SessionState, evolve
from diceledger.domain.session.text import normalize_name
from diceledger.infra.access.names import looks_alike
from diceledger.infra.codec.events import from_record, new_event
from diceledger.infra.snapshots.codec import Head
from diceledger.infra.store.port import Clock, EventStore, utc_now
from diceledger.infra.store.transaction import after_commit, on_rollback

if TYPE_CHECKING:
    from diceledger.infra.snapshots.store import Steady

MAX_ATTEMPTS = 12
SEED_BYTES = 32
# A command writes the session's snapshot once this many events were folded past the last
# one, and at least a SNAPSHOT_SHARE-th of the events the last one held: a fresh process
# then folds at most about that many events after reading it. Writing one costs time in
# proportion to the whole session (encode, write), so a fixed spacing made every command
# of a long session pay O(n) on average (docs/performance.md, "Long sessions"); spaced
# by a share of the session, each event pays a bounded part of the writes.
SNAPSHOT_EVERY = 100
SNAPSHOT_SHARE = 20

# Told of every successful append: the session and its version now (live streams). It is
# told inside the command's transaction, so what it sends the database commits (or rolls
# back) with the append; what must wait for the commit it defers with ``after_commit``.
Appended = Callable[[str, int], None]


def _unheard(_session_id: str, _version: int) -> None:
    return None


class Ledger(Protocol):
    """Where each append is signed: the checkpoint ledger (``infra.ledger.checkpoint_ledger``)."""

    def append_signed(
        self,
        store: EventStore,
        stream_id: str,
        new_events: Sequence[NewEvent],
        expected_version: int,
    ) -> tuple[list[RecordedEvent], SignedCheckpoint]: ...


class Snapshots(Protocol):
    """Where session states are kept between processes (``infra.snapshots.store``): a cache."""

    def load(self, stream_id: str) -> SessionState | None: ...

    def save(self, state: SessionState, head: Head, steady: Steady) -> bool: ...


class Vault(Protocol):
    """Where epoch seeds wait, outside the log, until they are revealed."""

    def put(self, stream_id: str, seed: bytes) -> str: ...

    def get(self, stream_id: str, commitment: str) -> bytes | None: ...


def _snapshot_due(version: int, snapshot_at: int) -> bool:
    """Tell whether a state at ``version`` is due a snapshot, the last one at ``snapshot_at``."""
    return version - snapshot_at >= max(SNAPSHOT_EVERY, snapshot_at // SNAPSHOT_SHARE)


def session_id_for(title: str, suffix: str) -> str:
    """Return a short, typeable session id: the title's slug and a random suffix."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:24].strip("-")
    return f"{slug or 'session'}-{suffix}"


@dataclass(frozen=True)
class Outcome:
    """What a command appended and the session state after it."""

    session_id: str
    appended: list[tuple[RecordedEvent, Event]]
    state: SessionState
    checkpoint: SignedCheckpoint | None = None  # None when the service signs nothing


CommandSource = cmd.Command | Callable[[SessionState], cmd.Command]
# Run once the command is decided, before its events are appended (keeps a new seed).
BeforeAppend = Callable[[], object]


def _nothing() -> None:
    return None


class SessionService:
    """Run session commands against an event store and a seed vault."""

    def __init__(
        self,
        store: EventStore,
        vault: Vault,
        new_seed: Callable[[], bytes] = lambda: secrets.token_bytes(SEED_BYTES),
        new_suffix: Callable[[], str] = lambda: secrets.token_hex(3),
        clock: Clock = utc_now,
        on_appended: Appended = _unheard,
        ledger: Ledger | None = None,
        snapshots: Snapshots | None = None,
    ) -> None:
        """Run commands on ``store``; with a ``ledger``, every append is signed as it lands.

        With ``snapshots``, a session not loaded before starts from its persisted snapshot
        (checked against the log) and commands keep the snapshot near the stream's head.
        """
        self.store = store
        self.vault = vault
        self._on_appended = on_appended
        self.ledger = ledger
        self._new_seed = new_seed
        self._new_suffix = new_suffix
        self._clock = clock
        self._states: dict[str, SessionState] = {}
        self._snapshots = snapshots
        self._snapshot_at: dict[str, int] = {}  # the version of each session's snapshot
        self._seeds: dict[tuple[str, str], bytes] = {}
        # The HMAC key of each seed, made once: every roll under the seed starts from it.
        self._keys: dict[tuple[str, str], SeedKey] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._locks_guard = threading.Lock()

    @contextmanager
    def locked(self, session_id: str) -> Iterator[None]:
        """Hold the session's lock: its cached state changes only under it.

        Several threads of one process (an HTTP worker) share the cached states; other
        processes are kept apart by the store's version check instead.
        """
        with self._locks_guard:
            lock = self._locks.setdefault(session_id, threading.RLock())
        with lock:
            yield

    def reseed(self, new_seed: Callable[[], bytes], new_suffix: Callable[[], str]) -> None:
        """Draw epoch seeds and session ids from these instead (a reproducible demo)."""
        self._new_seed, self._new_suffix = new_seed, new_suffix

    def load(self, session_id: str) -> SessionState:
        """Return the session's current state, or refuse an unknown session.

        The state of each session loaded before is kept and caught up with the events
        appended since (by anyone), so a long-lived service does not replay from scratch.
        """
        with self.locked(session_id):
            state = self._caught_up(session_id)
            if not state.started:
                raise unknown_session(session_id)
            self._states[session_id] = state
            return state

    def _caught_up(self, session_id: str) -> SessionState:
        state = self._states.get(session_id) or self._restored(session_id) or SessionState()
        if state.version and self.store.current_version(session_id) == state.version:
            # Nothing appended since (the usual case for a worker's own session): its
            # version is one cheap statement, where reading the stream's rows past it is
            # a page query through Core even when it finds none.
            return state
        for record in self.store.read_stream(session_id, state.version + 1):
            evolve(state, record.stream_version, from_record(record))
        return state

    def _restored(self, session_id: str) -> SessionState | None:
        """Return the session's persisted snapshot state, if it checks against the log."""
        if self._snapshots is None:
            return None
        state = self._snapshots.load(session_id)
        if state is not None:
            self._snapshot_at[session_id] = state.version
        return state

    def start(
        self,
        title: str,
        actor: str,
        manual_dice_allowed: bool = True,
        carried: tuple[cmd.CarriedCommand, ...] = (),
    ) -> Outcome:
        """Start a session with a fresh id and a committed first seed.

        The seed enters the vault only once the start is decided: a refused start keeps
        no seed.
        """
        session_id = session_id_for(title, self._new_suffix())
        seed = self._new_seed()
        command = cmd.StartSession(
            session_id, title, commitment(seed), manual_dice_allowed, carried
        )
        keep = functools.partial(self.vault.put, session_id, seed)
        return self._run(session_id, actor, command, SessionState(), before_append=keep)

    def reveal_seed(self, session_id: str, actor: str) -> Outcome:
        """Publish the current epoch's seed and commit to a new one (kept once decided)."""
        seed = self._new_seed()

        def command(state: SessionState) -> cmd.Command:
            return cmd.RevealSeed(self._seed(session_id, state), commitment(seed))

        keep = functools.partial(self.vault.put, session_id, seed)
        return self.execute(session_id, actor, command, before_append=keep)

    def end(self, session_id: str, actor: str, dispute_window: int | None = None) -> Outcome:
        """End the session, revealing its last seed; disputes stay open for the window."""

        def command(state: SessionState) -> cmd.Command:
            seed = self._seed(session_id, state)
            if dispute_window is None:
                return cmd.EndSession(seed)
            return cmd.EndSession(seed, dispute_window)

        return self.execute(session_id, actor, command)

    def execute(
        self,
        session_id: str,
        actor: str,
        command: CommandSource,
        before_append: BeforeAppend = _nothing,
    ) -> Outcome:
        """Decide ``command`` on the latest state and append it, retrying on conflicts."""
        correlation = str(uuid.uuid4())
        for attempt in range(MAX_ATTEMPTS):
            try:
                with self.locked(session_id):
                    state = self.load(session_id)
                    outcome = self._run(
                        session_id, actor, command, state, correlation, before_append
                    )
                    self._keep_snapshot(outcome)
                    return outcome
            except ConcurrencyError:
                # Another process appended first: the next load catches the state up. A
                # state ahead of the store folded events whose transaction rolled back.
                self._forget_if_ahead(session_id)
                time.sleep(min(0.005 * 2**attempt, 0.2) * (0.5 + secrets.randbelow(100) / 100))
        raise ConcurrencyError(
            f"session '{session_id}' is busy: {MAX_ATTEMPTS} attempts lost to other writers"
        )

    def _keep_snapshot(self, outcome: Outcome) -> None:
        """Write the session's snapshot when enough events were folded past the last one."""
        session_id, state = outcome.session_id, outcome.state
        if self._snapshots is None or not outcome.appended:
            return
        if not _snapshot_due(state.version, self._snapshot_at.get(session_id, 0)):
            return
        head = outcome.appended[-1][0]
        if head.stream_version != state.version:
            return
        # Best effort, once the append committed: a snapshot not written costs only time,
        # and is tried again only after as many events more (no grant: no retry each time).
        # By then this session's lock is free and the next command may be folding into
        # the same state, so the state is encoded under the lock again.
        snapshots, steady = self._snapshots, functools.partial(self.locked, session_id)
        after_commit(lambda: snapshots.save(state, Head(head.stream_version, head.hash), steady))
        self._snapshot_at[session_id] = state.version

    def _run(
        self,
        session_id: str,
        actor: str,
        command: CommandSource,
        state: SessionState,
        correlation: str | None = None,
        before_append: BeforeAppend = _nothing,
    ) -> Outcome:
        concrete = command(state) if callable(command) else command
        # `--as "mira "` acts as mira: names are kept normalised (NFKC, single spaces).
        actor = normalize_name(actor)
        context = Context(
            actor, self._dice(session_id, state), now=self._clock(), lookalike=looks_alike
        )
        events = decide(state, concrete, context)
        before_append()
        meta = {
            "actor": actor,
            "correlation_id": correlation or str(uuid.uuid4()),
            "client_version": __version__,
        }
        envelopes = [new_event(e, str(uuid.uuid4()), meta) for e in events]
        signed = None
        if self.ledger is None:
            recorded = self.store.append(session_id, envelopes, state.version)
        else:
            recorded, signed = self.ledger.append_signed(
                self.store, session_id, envelopes, state.version
            )
        appended = list(zip(recorded, events, strict=True))
        # Should the request's transaction roll back after all, the cached state below has
        # folded events that never were: forget it, and the next load replays the log.
        on_rollback(functools.partial(self._forget, session_id))
        for record, event in appended:
            evolve(state, record.stream_version, event)
        if recorded:
            self._on_appended(session_id, recorded[-1].stream_version)
        return Outcome(session_id, appended, state, signed)

    def _forget(self, session_id: str) -> None:
        """Drop the cached state of a session (its last append was rolled back)."""
        with self.locked(session_id):  # not while a load is putting it back
            self._states.pop(session_id, None)
            self._snapshot_at.pop(session_id, None)

    def _forget_if_ahead(self, session_id: str) -> None:
        with self.locked(session_id):
            state = self._states.get(session_id)
            if state is not None and state.version > self.store.current_version(session_id):
                self._forget(session_id)

    def _seed(self, session_id: str, state: SessionState) -> bytes:
        # A commitment names one seed forever, so a seed once read need not be read again.
        key = (session_id, state.epoch.commitment)
        seed = self._seeds.get(key) or self.vault.get(*key)
        if seed is not None:
            self._seeds[key] = seed
        if seed is None:
            raise CorruptLogError(
                f"the seed vault has no seed for epoch {state.epoch.number} of '{session_id}': "
                "a session imported while open keeps its seed in the store it came from; "
                "play it on there, or end it there and import it again"
            )
        return seed

    def _dice(self, session_id: str, state: SessionState) -> DiceFactory:
        def dice(nonce: int, client_seed: str, salt: str) -> DiceSource:
            key = self._keys.get((session_id, state.epoch.commitment))
            if key is None:
                key = SeedKey(self._seed(session_id, state))
                self._keys[session_id, state.epoch.commitment] = key
            return key.source(session_id, nonce, client_seed, salt)

        return dice
