"""The application layer: every use case of diceledger, for every face.

A face (the CLI, the HTTP service) parses its input into the typed commands and queries
below, calls one method with the acting member, and renders the typed result. Who acts is
always an explicit argument: the CLI takes it from ``--as`` against a store its user owns,
the HTTP face only from a credential. Every rule lives in the domain; this layer loads,
decides, appends, and reads.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from diceledger.domain.errors import (
    NotFoundError,
    ReadOnlyError,
    StoreUnavailableError,
    unknown_session,
)
from diceledger.domain.json import JsonObject
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import (
    PlayerJoined,
    RollRequested,
    SheetEvent,
    SheetRightsSet,
)
from diceledger.domain.session.visibility import Viewer
from diceledger.infra.app.proofs import Proofs
from diceledger.infra.app.results import (
    DisputeResult,
    ExportFileResult,
    ExportResult,
    ImportResult,
    LuckResult,
    MemberResult,
    MemberView,
    Moment,
    ProjectionStatus,
    ReplayResult,
    RollResult,
    SeedRevealResult,
    SessionDirectory,
    SessionEndResult,
    SessionStartedResult,
    SessionView,
    StatisticsResult,
)
from diceledger.infra.app.sessions import Appended, Outcome, SessionService, Snapshots, Vault
from diceledger.infra.app.sheets import CharactersView, CharacterView, SheetResult
from diceledger.infra.ledger.checkpoint_ledger import CheckpointLedger
from diceledger.infra.ledger.signing import Keyring
from diceledger.infra.store.port import EventStore

# What only some use cases need is imported in their methods: every CLI command is a new
# process, and a roll should not pay at start-up for the odds, the projections or the feed.
if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from diceledger.domain.projections.report import Visible
    from diceledger.domain.signed_note import VerifierKey
    from diceledger.infra.app.campaigns import Campaigns
    from diceledger.infra.app.export_verdict import Verdict
    from diceledger.infra.app.feed import SessionFeed, SessionTails
    from diceledger.infra.app.verification import HeadAnchor, Line, Reader, Watch
    from diceledger.infra.projections.checkpoints import Status
    from diceledger.infra.projections.wiring import PersistedProjection

# Called with how many events were just folded (a progress bar's advance).
Progress = Callable[[int], None]
WHOLE = Moment()  # a replay to the end


def _unwatched(records: Iterable[Line], _count: int) -> Iterable[Line]:
    return records


class Application:
    """diceledger's use cases over one store, one seed vault and their projections."""

    def __init__(
        self,
        store: EventStore,
        vault: Vault,
        url: str,
        engine: Engine | None = None,
        full_url: str | None = None,
        on_appended: Appended | None = None,
        ledger: CheckpointLedger | None = None,
        keyring: Keyring | None = None,
        snapshots: Snapshots | None = None,
        anchors: Sequence[HeadAnchor] = (),
    ) -> None:
        """Serve ``store`` and ``vault``; ``engine`` holds the persisted projections.

        ``url`` is safe to show (no password); ``full_url`` is what other processes of the
        same server connect with. ``on_appended`` is told of every append (live streams).
        With a ``ledger`` (and the ``keyring`` it signs with), every append is signed and
        every command's result carries its checkpoint. With ``snapshots``, sessions start
        from their persisted snapshot (checked against the log) instead of a full replay.
        """
        self._store = store
        self._tails: SessionTails | None = None  # made by the first live stream
        self._url = url
        self._full_url = full_url or url
        self._engine = engine
        self._ledger = ledger
        self._anchors = tuple(anchors)
        self._sessions = (
            SessionService(store, vault, ledger=ledger, snapshots=snapshots)
            if on_appended is None
            else SessionService(
                store, vault, on_appended=on_appended, ledger=ledger, snapshots=snapshots
            )
        )
        self.proofs = Proofs(store, self._sessions, ledger, keyring)
        self._campaigns: Campaigns | None = None

    @property
    def campaigns(self) -> Campaigns:
        """Return the campaign use cases; campaigns are kept in the store's database."""
        from diceledger.infra.app.campaigns import Campaigns
        from diceledger.infra.campaigns.store import CampaignStore

        if self._campaigns is None:
            if self._engine is None:
                raise StoreUnavailableError("campaigns need a database, not an in-memory store")
            self._campaigns = Campaigns(self, CampaignStore(self._engine))
        return self._campaigns

    @property
    def url(self) -> str:
        """Return the database URL the application was built on (password never included)."""
        return self._url

    def close(self) -> None:
        """Close the store's connections (a server stopping, a test ending)."""
        if self._engine is not None:
            self._engine.dispose()

    def url_for_workers(self) -> str:
        """Return the URL other processes of this server open the same store with."""
        return self._full_url

    def reseed(self, new_seed: Callable[[], bytes], new_suffix: Callable[[], str]) -> None:
        """Draw epoch seeds and session ids from these (a reproducible demo)."""
        self._sessions.reseed(new_seed, new_suffix)

    # -- commands ---------------------------------------------------------------------------

    def start_session(
        self,
        actor: str,
        title: str,
        manual_dice_allowed: bool = True,
        carried: tuple[cmd.CarriedCommand, ...] = (),
    ) -> SessionStartedResult:
        """Start a session whose GM is ``actor``, committed to a fresh seed; ``carried``
        are the sheets it starts with (a campaign's characters)."""
        outcome = self._sessions.start(title, actor, manual_dice_allowed, carried)
        state = outcome.state
        return SessionStartedResult(
            outcome.session_id,
            state.title,
            state.creator,
            state.epoch.commitment,
            _records(outcome),
            _note(outcome),
        )

    def join(self, actor: str, session_id: str, command: cmd.JoinSession) -> MemberResult:
        """Join a session, or (a GM) add a member or co-GM."""
        with self._sessions.locked(session_id):
            outcome = self._sessions.execute(session_id, actor, command)
            # The name as the session keeps it (normalised), not necessarily as typed.
            joined = next(e for _, e in outcome.appended if isinstance(e, PlayerJoined))
            member = MemberView.of(outcome.state.members[joined.name])
            return MemberResult(session_id, member, _records(outcome), _note(outcome))

    def request_roll(
        self, actor: str, session_id: str, command: cmd.RequestRoll | cmd.RequestOpposed
    ) -> RollResult:
        """Roll: a plain roll, a check, a save or an opposed check."""
        with self._sessions.locked(session_id):
            outcome = self._sessions.execute(session_id, actor, command)
            roll_id = next(e.roll_id for _, e in outcome.appended if isinstance(e, RollRequested))
            return RollResult.of(outcome.state, roll_id, actor, _records(outcome), _note(outcome))

    def reroll(self, actor: str, session_id: str, command: cmd.Reroll) -> RollResult:
        """Spend rerolls on chosen dice of a roll awaiting them (R11)."""
        return self._on_roll(actor, session_id, command.roll_id, command)

    def roll_side(self, actor: str, session_id: str, command: cmd.RollSide) -> RollResult:
        """Roll one's own side of an opposed check that waits for it (R6)."""
        return self._on_roll(actor, session_id, command.roll_id, command)

    def accept(
        self,
        actor: str,
        session_id: str,
        roll_id: int,
        faces: tuple[int, ...] | None = None,
        turn: cmd.Turn | None = None,
    ) -> RollResult:
        """Accept a roll awaiting rerolls as it stands (of an opposed check: one side's turn).

        ``faces`` are typed-in dice for the fresh round an opposed check rolls if it ties;
        with ``turn``, the accept is refused unless the check still waits for that turn.
        """
        return self._on_roll(actor, session_id, roll_id, cmd.Accept(roll_id, faces, turn))

    def reveal_roll(self, actor: str, session_id: str, roll_id: int) -> RollResult:
        """Show a blind roll to the players (GM)."""
        return self._on_roll(actor, session_id, roll_id, cmd.RevealRoll(roll_id))

    def reveal_seed(self, actor: str, session_id: str) -> SeedRevealResult:
        """Reveal the current seed (GM) and commit to the next one."""
        with self._sessions.locked(session_id):
            outcome = self._sessions.reveal_seed(session_id, actor)
            revealed, current = outcome.state.epochs[-2:]
            return SeedRevealResult(
                session_id, revealed, current, _records(outcome), _note(outcome)
            )

    def end_session(
        self, actor: str, session_id: str, dispute_window: int | None = None
    ) -> SessionEndResult:
        """End a session (GM): waiting rolls resolve as they stand, the seed is revealed.

        Disputes and rulings stay open ``dispute_window`` seconds after the end.
        """
        with self._sessions.locked(session_id):
            outcome = self._sessions.end(session_id, actor, dispute_window)
            state = outcome.state
            last = replace(state.epochs[-1])
            until = state.disputes_until
            return SessionEndResult(session_id, last, until, _records(outcome), _note(outcome))

    def open_dispute(self, actor: str, session_id: str, roll_id: int, reason: str) -> DisputeResult:
        """Dispute a roll the actor can see."""
        outcome = self._sessions.execute(session_id, actor, cmd.OpenDispute(roll_id, reason))
        return DisputeResult(
            session_id, roll_id, actor, "open", reason, _records(outcome), _note(outcome)
        )

    def resolve_dispute(
        self, actor: str, session_id: str, command: cmd.ResolveDispute
    ) -> DisputeResult:
        """Rule on a dispute (GM): uphold the roll or void it."""
        outcome = self._sessions.execute(session_id, actor, command)
        ruling = cmd.Ruling(command.outcome).value
        return DisputeResult(
            session_id,
            command.roll_id,
            actor,
            ruling,
            command.note,
            _records(outcome),
            _note(outcome),
        )

    def change_sheet(self, actor: str, session_id: str, command: cmd.SheetCommand) -> SheetResult:
        """Create, change or retire a character, or (GM) choose who keeps the sheets."""
        with self._sessions.locked(session_id):
            outcome = self._sessions.execute(session_id, actor, command)
            sheets = CharactersView.of(outcome.state)
            # The name as the session keeps it (normalised), not necessarily as typed.
            named = next(
                (
                    e.character
                    for _, e in outcome.appended
                    if isinstance(e, SheetEvent) and not isinstance(e, SheetRightsSet)
                ),
                None,
            )
            changed = None if named is None else sheets.find(named)
            return SheetResult(sheets, changed, _records(outcome), _note(outcome))

    # -- reads ------------------------------------------------------------------------------

    def characters(self, session_id: str) -> CharactersView:
        """Return every character of a session; every member sees every sheet."""
        with self._sessions.locked(session_id):
            return CharactersView.of(self._sessions.load(session_id))

    def character(self, session_id: str, name: str) -> CharacterView:
        """Return one character of a session, or refuse a name it does not have."""
        found = self.characters(session_id).find(name)
        if found is None:
            raise NotFoundError(f"no character {name!r} in session '{session_id}'")
        return found

    def session(self, viewer: Viewer, session_id: str) -> SessionView:
        """Return a session's members, seeds and rolls as ``viewer`` may see them."""
        with self._sessions.locked(session_id):
            return SessionView.of(self._sessions.load(session_id), viewer)

    def title(self, session_id: str) -> str:
        """Return a session's title, which whoever holds an invite or a sign-in code may read."""
        with self._sessions.locked(session_id):
            return self._sessions.load(session_id).title

    def members(self, session_id: str) -> dict[str, str]:
        """Return each member's role ("gm" or "player") in the session."""
        with self._sessions.locked(session_id):
            state = self._sessions.load(session_id)
            return {name: member.role for name, member in state.members.items()}

    def roll(self, viewer: Viewer, session_id: str, roll_id: int) -> RollResult:
        """Return one roll as ``viewer`` may see it."""
        with self._sessions.locked(session_id):
            state = self._sessions.load(session_id)
            if roll_id not in state.rolls:
                raise NotFoundError(f"no roll {roll_id} in session '{session_id}'")
            return RollResult.of(state, roll_id, viewer, ())

    def sessions(self, progress: Progress | None = None) -> SessionDirectory:
        """Return every session in the store, from the session directory brought up to date."""
        from diceledger.infra.projections.directory import folded_entries
        from diceledger.infra.projections.wiring import session_directory

        directory = session_directory(self._store, self._engine)
        try:
            directory.catch_up(progress)
            return tuple(directory.entries())
        except ReadOnlyError:  # a store that may only be read: list it from the log itself
            return tuple(folded_entries(self._store))

    def pending_directory_events(self) -> int:
        """Return how many events the session directory has yet to fold."""
        from diceledger.infra.projections.wiring import session_directory

        return session_directory(self._store, self._engine).status().behind

    def replay(self, viewer: str, session_id: str, moment: Moment = WHOLE) -> ReplayResult:
        """Return the session's timeline as ``viewer`` may see it, up to ``moment``."""
        from diceledger.domain.projections.logged import state_as_of, until
        from diceledger.domain.projections.summary import standing
        from diceledger.domain.projections.timeline import timeline
        from diceledger.domain.session.visibility import hidden_from
        from diceledger.infra.projections.decoding import logged_all

        items = list(logged_all(self._store.read_stream(session_id)))
        if not items:
            raise unknown_session(session_id)
        hidden = hidden_from(state_as_of(items), viewer)
        shown = list(until(items, moment.until_position, moment.at))
        lines = tuple(timeline(shown, hidden))
        as_of = standing(state_as_of(shown), hidden) if moment.given else None
        return ReplayResult(session_id, lines, as_of)

    def follow(self, viewer: str, session_id: str) -> SessionFeed:
        """Return ``viewer``'s live feed of a session: each read brings what was appended since."""
        from diceledger.infra.app.feed import SessionFeed, SessionTails

        if self._store.current_version(session_id) == 0:
            raise unknown_session(session_id)
        # A command-line run never streams, so the tails are made (and imported) on demand;
        # two streams racing here at most make one extra store read.
        if self._tails is None:
            self._tails = SessionTails(self._store, lambda sid: self.proofs.latest(sid))
        return SessionFeed(self._tails.of(session_id), viewer)

    def luck(self, viewer: str, session_id: str) -> LuckResult:
        """Return each player's rated checks in order, as ``viewer`` may see them."""
        from diceledger.domain.projections.logged import state_as_of
        from diceledger.domain.projections.luck import luck_steps
        from diceledger.domain.session.visibility import hidden_from
        from diceledger.infra.projections.decoding import logged_all

        items = list(logged_all(self._store.read_stream(session_id)))
        if not items:
            raise unknown_session(session_id)
        series = luck_steps(items, hidden_from(state_as_of(items), viewer))
        return LuckResult(session_id, {name: tuple(steps) for name, steps in series.items()})

    def review(self, viewer: str, session_id: str, roll_id: int) -> JsonObject:
        """Return the GM's review of one roll: every die, its provenance and the proofs."""
        from diceledger.infra.app.review import review_roll

        return review_roll(self._store, session_id, roll_id, viewer)

    def verify_session(
        self, session_id: str, reader: Reader | None = None, watch: Watch = _unwatched
    ) -> Verdict:
        """Verify a stored session: chain, nonces, commitments, dice and outcomes, and hold
        it to its latest signed checkpoint, every head anchor and the reader's checkpoints.
        """
        from diceledger.infra.app.verification import Reader, verify_session

        met = Reader() if reader is None else reader
        return verify_session(self._store, self.proofs, self._anchors, session_id, met, watch)

    def statistics(
        self,
        viewer: str,
        session_id: str | None = None,
        player: str | None = None,
        progress: Progress | None = None,
        within: Collection[str] | None = None,
    ) -> StatisticsResult:
        """Return per-player statistics in the scope ``viewer`` may see.

        ``within`` keeps only those sessions (a campaign's): their per-session reports,
        then the reports summed over them.
        """
        from diceledger.domain.projections.report import player_reports
        from diceledger.infra.projections.queries import (
            folded_counters,
            has_session,
            visible_counters,
        )
        from diceledger.infra.projections.wiring import statistics_projection

        projection = statistics_projection(self._store, self._engine)
        counters: Iterable[Visible]
        try:
            projection.catch_up(progress)
            engine = projection.engine
            known = session_id is None or has_session(engine, session_id)
            counters = visible_counters(engine, viewer, session_id, player, within)
        except ReadOnlyError:  # a store that may only be read: count from the log itself
            known, counters = folded_counters(self._store, viewer, session_id, player, within)
        if not known:
            raise unknown_session(session_id or "")
        return StatisticsResult(viewer, tuple(player_reports(counters, session_id, player)))

    def character_statistics(self, viewer: str, within: Collection[str]) -> StatisticsResult:
        """Return per-character statistics of those sessions as ``viewer`` may see them:
        each session's reports, then each character's summed over them (``ALL``)."""
        from diceledger.domain.projections.report import player_reports
        from diceledger.infra.projections.queries import character_counters

        counters = character_counters(self._store, viewer, within)
        return StatisticsResult(viewer, tuple(player_reports(counters)))

    def pending_statistics_events(self) -> int:
        """Return how many events the statistics projection has yet to fold."""
        from diceledger.infra.projections.wiring import statistics_projection

        return statistics_projection(self._store, self._engine).status().behind

    def export(self, viewer: str, session_id: str) -> ExportResult:
        """Return a session's events as JSON Lines, as the viewer may see them.

        A hidden blind roll's events are sealed for a player: each keeps its place and
        hash in the chain, so the rest still verifies (docs/verification.md, "Sealed lines").
        """
        from diceledger.domain.session.visibility import hidden_from
        from diceledger.infra.store.exporting import export_lines

        with self._sessions.locked(session_id):
            state = self._sessions.load(session_id)
            sealed = hidden_from(state, viewer)
            version, ended = state.version, state.ended
        records = self._store.read_stream(session_id)
        lines = export_lines((r for r in records if r.stream_version <= version), sealed)
        proof = self.proofs.export_proof(session_id, version)
        return ExportResult(session_id, version, ended, lines, proof)

    def export_file(self, viewer: str, session_id: str, output: Path) -> ExportFileResult:
        """Write a session's export to ``output`` and its proof beside it, FILE.proof.json."""
        from diceledger.infra.ledger.signed_exports import proof_path, write_proof
        from diceledger.infra.store.exporting import write_lines

        exported = self.export(viewer, session_id)
        count = write_lines(exported.lines, output)
        proof = None
        if exported.proof is not None:
            proof = proof_path(output)
            write_proof(exported.proof, proof)
        return ExportFileResult(session_id, count, exported.ended, proof)

    def import_file(
        self,
        path: Path,
        proof_file: Path | None = None,
        trusted: Sequence[VerifierKey] = (),
        allow_unsigned: bool = False,
    ) -> ImportResult:
        """Append an export's events to this store, after verifying every session in it.

        Each session must come with a checkpoint in the proof at ``proof_file`` (default:
        FILE.proof.json beside the export) signed by a key this store trusts (its own, or
        one of ``trusted``) and heading exactly the file's events; a session new to the
        store may come without one when ``allow_unsigned`` says so.
        """
        from diceledger.infra.ledger.signed_exports import import_signed, proof_path, read_proof

        proof = read_proof(proof_file or proof_path(path))
        keys = (*self.proofs.trusted(), *trusted)
        retired = self.proofs.retired()
        done = import_signed(self._store, self._ledger, path, proof, keys, allow_unsigned, retired)
        return ImportResult(done.events, done.appended, done.checkpoints)

    def projections(self) -> list[ProjectionStatus]:
        """Return how far each persisted projection has read the store."""
        return [_status(label, p.status()) for label, p in self._persisted()]

    def rebuild_projections(
        self, progress_for: Callable[[str, int], AbstractContextManager[Progress | None]]
    ) -> list[ProjectionStatus]:
        """Rebuild every persisted projection from position 0; report each.

        ``progress_for(label, events)`` gives the progress callback of one rebuild.
        """
        import time

        done = []
        for label, projection in self._persisted():
            started = time.perf_counter()
            with progress_for(label, projection.status().head) as progress:
                folded = projection.rebuild(progress)
            seconds = round(time.perf_counter() - started, 3)
            done.append(_status(label, projection.status(), folded, seconds))
        return done

    # -- helpers ----------------------------------------------------------------------------

    def _on_roll(
        self, actor: str, session_id: str, roll_id: int, command: cmd.Command
    ) -> RollResult:
        with self._sessions.locked(session_id):
            outcome = self._sessions.execute(session_id, actor, command)
            return RollResult.of(outcome.state, roll_id, actor, _records(outcome), _note(outcome))

    def _persisted(self) -> list[tuple[str, PersistedProjection]]:
        from diceledger.infra.projections.wiring import session_directory, statistics_projection

        return [
            ("statistics", statistics_projection(self._store, self._engine)),
            ("session directory", session_directory(self._store, self._engine)),
        ]


def _status(label: str, status: Status, folded: int = 0, seconds: float = 0.0) -> ProjectionStatus:
    return ProjectionStatus(
        status.name, label, status.checkpoint, status.head, status.behind, folded, seconds
    )


def _records(outcome: Outcome) -> tuple[RecordedEvent, ...]:
    return tuple(record for record, _ in outcome.appended)


def _note(outcome: Outcome) -> str | None:
    return None if outcome.checkpoint is None else str(outcome.checkpoint)
