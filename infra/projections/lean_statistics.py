"""The statistics fold the product runs: the domain's counting rules over lean records.

``domain.projections.statistics`` states the rules readably: it folds whole domain events
into a full session state and works out each roll's figures from it. A rebuild reads
every event of the log, and that costs three times raw sqlite3. This fold gives the same
counters (a property test holds it equal to the domain fold on played sessions, every
counter and member role) from what ``codec.stat_records`` decodes of each event, and
keeps of each session only what the counting reads: member roles, reroll allowances, the
rolls with their dice, and what each roll adds to the counters now. A reveal, a void or
the session's end takes that addition back and adds the new one. The exact odds and the
rerolls' replays are the domain's own (``facts``, ``rolls``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache

from diceledger.domain.dice.sources import Draw, Provenance
from diceledger.domain.errors import CorruptLogError
from diceledger.domain.projections.facts import (
    Luck,
    Shape,
    check_luck,
    opposed_luck,
    reroll_allowance,
    shape_of,
    shape_spec,
)
from diceledger.domain.projections.statistics import ALL, OWN, PUBLIC, Key
from diceledger.domain.session.rolls import Segment, replay_segments
from diceledger.infra.codec import stat_records as rec
from diceledger.infra.store.port import EventData, EventStore, event_data

Counts = dict[str, int]  # metric -> amount
LoadHistory = Callable[[str, int], Iterable[EventData]]  # session, up to version -> events


# The scope of a change that counts in both scopes alike: a roll everyone sees.
BOTH = "both"


class Changes:
    """Counter changes as a batch of events produced them, and the member roles it saw.

    Changes are summed per (session, player, scope), each a dict of metric -> amount, and
    a change everyone sees is summed once, under ``BOTH``: ``nonzero`` spreads them into
    the projection's counters (session, player, scope, metric).
    """

    def __init__(self) -> None:
        self.sums: dict[tuple[str, str, str], Counts] = {}
        self.members: dict[tuple[str, str], str] = {}  # (session, name) -> role

    def of(self, session_id: str, player: str, scope: str) -> Counts:
        """Return the metrics that changes of one player in one scope are summed into."""
        key = (session_id, player, scope)
        sums = self.sums.get(key)
        if sums is None:
            sums = self.sums[key] = {}
        return sums

    def nonzero(self) -> dict[Key, int]:
        """Return the counter changes that are not zero."""
        counters: dict[Key, int] = {}
        get = counters.get
        for (session_id, player, scope), sums in self.sums.items():
            for scope_ in (ALL, PUBLIC) if scope == BOTH else (scope,):
                for metric, amount in sums.items():
                    key = (session_id, player, scope_, metric)
                    counters[key] = get(key, 0) + amount
        return {key: amount for key, amount in counters.items() if amount}


class _Roll:
    __slots__ = (
        "allowance",
        "dice",
        "played",
        "raiser",
        "request",
        "resolution",
        "revealed",
        "voided",
    )

    def __init__(self, request: rec.Requested, allowance: int, played: dict[str, str] | None):
        self.request = request
        self.allowance = allowance  # the rerolls its side could spend when requested
        self.played = played  # side -> character, when counted by character
        self.dice: list[rec.DiceRecord] = []
        self.resolution: rec.CheckDone | rec.RollDone | None = None
        self.raiser: str | None = None  # who raised its latest dispute
        self.voided = False
        self.revealed = False


class _Action:
    __slots__ = ("granted", "scope", "spent")

    def __init__(self, scope: str, granted: int) -> None:
        self.scope, self.granted, self.spent = scope, granted, 0


class _Session:
    __slots__ = ("actions", "characters", "members", "npc_names", "rolls", "version")

    def __init__(self) -> None:
        self.version = 0
        self.members: dict[str, str] = {}  # name -> role
        self.actions: dict[str, _Action] = {}
        self.rolls: dict[int, _Roll] = {}
        self.characters: dict[str, list[str | bool | None]] = {}  # name -> [owner, retired]
        self.npc_names: set[str] = set()


class LeanStatisticsFold:
    """Turn stored events, in the log's order, into counter changes.

    As ``StatisticsFold``: given ``load_history`` it keeps at most ``max_sessions`` open
    sessions and reloads an evicted one from its stream; ``by_character`` keys the rolls'
    figures by the character each side counts for, and leaves disputes out, and counts
    scope own for ``own_of`` alone.
    """

    def __init__(
        self,
        load_history: LoadHistory | None = None,
        max_sessions: int = 64,
        by_character: bool = False,
        own_of: str | None = None,
    ) -> None:
        self._load_history = load_history
        self._max_sessions = max_sessions
        self._by_character = by_character
        self._own_of = own_of
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._faces: dict[tuple[int, int], str] = {}  # (sides, face) -> its metric
        # One handler per record type, looked up by type: each takes the session, its id,
        # the record of its own type and the tally.
        self._handlers: dict[type[rec.StatRecord], Callable[..., None]] = {
            rec.Rolled: self._dice,
            rec.Requested: self._requested,
            rec.CheckDone: self._resolved,
            rec.RollDone: self._resolved,
            rec.Exploded: self._dice,
            rec.Rerolled: self._dice,
            rec.Joined: self._joined,
            rec.Revealed: self._revealed,
            rec.Disputed: self._disputed,
            rec.Ruled: self._ruled,
            rec.Ended: self._ended,
            rec.Created: self._created,
            rec.Retired: self._retired,
        }

    def apply(self, item: EventData, changes: Changes) -> None:
        """Fold one stored event into its session and record what it changes."""
        _, stream_id, version, event_type, schema_version, data = item
        session = self._sessions.get(stream_id)
        if session is None:
            session = self._session(stream_id, version)
        elif self._load_history is not None:
            self._sessions.move_to_end(stream_id)  # evicted last, as the most recent
        record = rec.stat_record(event_type, schema_version, data)
        self._fold(session, stream_id, version, record, changes)
        if type(record) is rec.Ended:
            self._sessions.pop(stream_id, None)

    def _fold(
        self,
        session: _Session,
        stream_id: str,
        version: int,
        record: rec.StatRecord | None,
        changes: Changes,
    ) -> None:
        if version != session.version + 1:
            raise CorruptLogError(
                f"event at version {version} does not follow version {session.version}"
            )
        session.version = version
        if record is not None:
            self._handlers[type(record)](session, stream_id, record, changes)

    # The events, most frequent first.

    def _dice(self, session: _Session, _: str, record: rec.DiceRecord, changes: Changes) -> None:
        roll = session.rolls[record.roll_id]
        roll.dice.append(record)
        # The request's side spends its action's allowance (an opposed check's other side
        # spends its own).
        if type(record) is rec.Rerolled and record.side == 0:
            session.actions[roll.request.action_id].spent += 1

    def _requested(
        self, session: _Session, _: str, request: rec.Requested, changes: Changes
    ) -> None:
        allowance = self._allowance(session, request)
        played = self._played(session, request) if self._by_character else None
        session.rolls[request.roll_id] = _Roll(request, allowance, played)
        for side in (request.side, request.opponent):
            if side is not None and side.name not in session.members:
                session.npc_names.add(side.name)
        if request.action_id not in session.actions:
            action = _Action(request.reroll_scope, request.rerolls_granted)
            session.actions[request.action_id] = action

    def _resolved(
        self,
        session: _Session,
        stream_id: str,
        record: rec.CheckDone | rec.RollDone,
        changes: Changes,
    ) -> None:
        roll = session.rolls[record.roll_id]
        roll.resolution = record
        self._add(session, stream_id, roll, changes, 1)

    def _joined(
        self, session: _Session, stream_id: str, record: rec.Joined, changes: Changes
    ) -> None:
        session.members[record.name] = record.role
        changes.members[(stream_id, record.name)] = record.role

    def _revealed(
        self, session: _Session, stream_id: str, record: rec.Revealed, changes: Changes
    ) -> None:
        roll = session.rolls[record.roll_id]
        self._add(session, stream_id, roll, changes, -1)
        roll.revealed = True
        self._add(session, stream_id, roll, changes, 1)

    def _disputed(
        self, session: _Session, stream_id: str, record: rec.Disputed, changes: Changes
    ) -> None:
        session.rolls[record.roll_id].raiser = record.by
        if not self._by_character:
            _count(changes.of(stream_id, record.by, BOTH), "disputes.raised", 1)

    def _ruled(
        self, session: _Session, stream_id: str, record: rec.Ruled, changes: Changes
    ) -> None:
        roll = session.rolls[record.roll_id]
        if not self._by_character:
            if roll.raiser is None:
                raise CorruptLogError(f"a ruling on roll {record.roll_id}, never disputed")
            _count(changes.of(stream_id, roll.raiser, BOTH), f"disputes.{record.outcome}", 1)
        if record.outcome == "voided":
            self._add(session, stream_id, roll, changes, -1)
            roll.voided = True
            self._add(session, stream_id, roll, changes, 1)
        else:
            roll.voided = False

    def _ended(self, session: _Session, stream_id: str, _: rec.Ended, changes: Changes) -> None:
        # The end shows every self roll to everyone: each counts again, as everyone sees it.
        for roll in session.rolls.values():
            if roll.request.mode == "self" and not roll.revealed:
                self._add(session, stream_id, roll, changes, -1)
                roll.revealed = True
                self._add(session, stream_id, roll, changes, 1)

    def _created(self, session: _Session, _: str, record: rec.Created, changes: Changes) -> None:
        session.characters[record.character] = [record.owner, False]

    def _retired(self, session: _Session, _: str, record: rec.Retired, changes: Changes) -> None:
        session.characters[record.character][1] = True

    # What a roll adds to the counters.

    def _add(
        self, session: _Session, stream_id: str, roll: _Roll, changes: Changes, sign: int
    ) -> None:
        """Add (sign 1) or take back (sign -1) what the resolved roll adds to the counters."""
        if roll.resolution is None:
            return
        request, played = roll.request, roll.played
        if played is not None:
            players = list(played)
        else:
            players = [n for n in _side_names(request) if n in session.members]
        # As the one visibility rule says: a public or revealed roll is seen by everyone;
        # a GM sees any other but a self roll; the others see it counted as hidden.
        shown: str | None = BOTH
        hidden: str | None = None
        if request.mode != "public" and not roll.revealed:
            shown, hidden = (None, BOTH) if request.mode == "self" else (ALL, PUBLIC)
        for name in players:
            player = name if played is None else played[name]  # or its character
            # Luck is a player's own: a roll they may not see (a GM's blind roll for them)
            # is no part of it; what they see of their own hidden roll counts as ``own``.
            sees = _sees(session, roll, name)
            scopes = [shown] if shown is not None else []
            if hidden is not None and sees and (played is None or name == self._own_of):
                scopes.append(OWN)
                _count(changes.of(stream_id, player, OWN), "excluded.hidden", -sign)
            for scope in scopes:
                sums = changes.of(stream_id, player, scope)
                if roll.voided:
                    _count(sums, "excluded.voided", sign)
                elif request.opponent is None:
                    self._single(sums, roll, sign, lucky=sees or played is not None)
                else:
                    self._opposed(sums, roll, name, sign, lucky=sees or played is not None)
            if hidden is not None:
                _count(changes.of(stream_id, player, hidden), "excluded.hidden", sign)

    # A roll's figures are counted straight into the sums they change, times ``sign``.

    def _single(self, sums: Counts, roll: _Roll, sign: int, lucky: bool = True) -> None:
        request, resolution = roll.request, roll.resolution
        kind_metrics = _KIND_METRICS.get(request.kind) or _kind_metrics(request.kind)
        get = sums.get
        rolls = kind_metrics[0]
        sums[rolls] = get(rolls, 0) + sign
        if type(resolution) is rec.CheckDone and request.target is not None:
            won = bool(resolution.success)
            if won:
                sums[kind_metrics[1]] = get(kind_metrics[1], 0) + sign
            if lucky:
                luck = check_luck(_shape(request, request.side), request.target, roll.allowance)
                _count_luck(sums, luck, won, sign)
        self._count_dice(sums, roll, 0, sign)

    def _opposed(self, sums: Counts, roll: _Roll, name: str, sign: int, lucky: bool = True) -> None:
        request, resolution = roll.request, roll.resolution
        if type(resolution) is not rec.CheckDone or request.opponent is None:
            raise CorruptLogError(f"opposed roll {request.roll_id} resolved with no check")
        side = 0 if name == request.side.name else 1
        won = resolution.winner == name
        _count(sums, "rolls.opposed", sign)
        if won:
            _count(sums, "won.opposed", sign)
        ours, theirs = _shape(request, request.side), _shape(request, request.opponent)
        odds = opposed_luck(ours, theirs, roll.allowance, request.opponent_rerolls_granted or 0)
        if lucky:
            _count_luck(sums, None if odds is None else odds[side], won, sign)
        self._count_dice(sums, roll, side, sign)

    def _count_dice(self, sums: Counts, roll: _Roll, side: int, sign: int) -> None:
        # Every die one side drew, rerolled ones included; an explosion's chain is keyed by
        # its round and base die, and is as long as its last step.
        get, faces = sums.get, self._faces
        chains: dict[tuple[int, int | None], int] = {}
        rerolls = 0
        for event in roll.dice:
            if event.side != side:
                continue
            if type(event) is rec.Rolled:
                dice = event.dice
            else:
                dice = (event.die,)  # type: ignore[union-attr]
                rerolls += type(event) is rec.Rerolled
            for die in dice:
                face = faces.get((die.sides, die.face))
                if face is None:
                    face = faces[(die.sides, die.face)] = f"face.{die.sides}.{die.face}"
                sums[face] = get(face, 0) + sign
                source = "source." + die.source
                sums[source] = get(source, 0) + sign
                if die.reason == "explosion":
                    sums["explosions"] = get("explosions", 0) + sign
                    key = (event.round, die.parent)
                    chains[key] = max(chains.get(key, 0), die.step)
        for length in chains.values():
            chain = f"chain.{length}"
            sums[chain] = get(chain, 0) + sign
        if rerolls:
            _count_rerolls(sums, roll, side, rerolls, sign)

    # What a request could spend and whom it counts for, from the state before it.

    @staticmethod
    def _allowance(session: _Session, request: rec.Requested) -> int:
        action = session.actions.get(request.action_id)
        return reroll_allowance(
            request.kind,
            request.opponent is not None and request.opponent_rerolls_granted is None,
            (request.rerolls_granted, request.reroll_scope),
            None if action is None else (action.granted - action.spent, action.scope),
        )

    @staticmethod
    def _played(session: _Session, request: rec.Requested) -> dict[str, str]:
        # As domain.projections.characters: a side counts for the character whose sheet it
        # read, else the one its member plays, else the NPC of its name.
        read = {ref.side: ref.character for ref in request.references if ref.use == "roll"}
        played: dict[str, str] = {}
        for index, name in enumerate(_side_names(request)):
            character = read.get(index)
            if character is None:
                character = _character_of(session, name)
            if character is not None:
                played[name] = character
        return played

    def _session(self, stream_id: str, version: int) -> _Session:
        # A session the fold does not hold: new, or reloaded from its stream.
        session = _Session()
        if version > 1:
            if self._load_history is None:
                raise CorruptLogError(
                    f"statistics: {stream_id} v{version} arrived without its history"
                )
            scratch = Changes()  # the history is counted already
            for item in self._load_history(stream_id, version - 1):
                record = rec.stat_record(item.event_type, item.schema_version, item.data)
                self._fold(session, stream_id, item.stream_version, record, scratch)
        self._sessions[stream_id] = session
        if self._load_history is not None and len(self._sessions) > self._max_sessions:
            self._sessions.popitem(last=False)
        return session


def stream_history(store: EventStore) -> LoadHistory:
    """Return what reloads a session from its stream, up to a version, for the fold."""

    def history(stream_id: str, up_to_version: int) -> Iterator[EventData]:
        for record in store.read_stream(stream_id):
            if record.stream_version > up_to_version:
                return
            yield event_data(record)

    return history


def fold_log(
    items: Iterable[EventData],
    store: EventStore,
    by_character: bool = False,
    own_of: str | None = None,
) -> Changes:
    """Fold events of ``store`` in the log's order into counter changes and member roles;
    by character, scope own is counted for ``own_of`` alone."""
    history = stream_history(store)
    fold = LeanStatisticsFold(history, by_character=by_character, own_of=own_of)
    changes = Changes()
    for item in items:
        fold.apply(item, changes)
    return changes


def _sees(session: _Session, roll: _Roll, name: str) -> bool:
    """Tell whether the member ``name`` may see the roll, as the one visibility rule says."""
    mode, gm = roll.request.mode, session.members.get(name) == "gm"
    if mode == "public" or roll.revealed:
        return True
    if mode == "self":
        return name == roll.request.roller
    return gm or (mode == "gm" and name == roll.request.roller)


def _side_names(request: rec.Requested) -> list[str]:
    if request.opponent is None:
        return [request.side.name]
    return [request.side.name, request.opponent.name]


def _character_of(session: _Session, side: str) -> str | None:
    # As SessionState.character_of: a member's own character, or the NPC of that name.
    if side in session.members and side not in session.npc_names:
        for name, (owner, retired) in session.characters.items():
            if owner == side and not retired:
                return name
        return None
    npc = session.characters.get(side)
    return side if npc is not None and npc[0] is None and not npc[1] else None


# The canonical shape of a side as requested, by the request's fields it is made of (the
# decoded side is a frozen struct, hashed in C): a session's few checks repeat many times.
_SHAPES: dict[tuple[str, bool, bool, rec.Side], Shape] = {}
_MAX_SHAPES = 4096


def _shape(request: rec.Requested, side: rec.Side) -> Shape:
    key = (request.kind, request.median, request.exploding, side)
    shape = _SHAPES.get(key)
    if shape is not None:
        return shape
    if len(_SHAPES) >= _MAX_SHAPES:
        _SHAPES.clear()
    shape = _SHAPES[key] = shape_of(
        request.kind,
        request.median,
        request.exploding,
        side.expression,
        _amounts(side.advantage),
        _amounts(side.disadvantage),
        _amounts(side.eased),
        _amounts(side.hindered),
    )
    return shape


def _amounts(amounts: tuple[rec.Amount, ...]) -> tuple[int, ...]:
    return tuple([a.amount for a in amounts]) if amounts else ()


def _count(sums: Counts, metric: str, amount: int) -> None:
    sums[metric] = sums.get(metric, 0) + amount


def _count_luck(sums: Counts, luck: Luck | None, won: bool, sign: int) -> None:
    # As facts.add_luck, added to sums that hold other rolls' luck already.
    if luck is None:
        _count(sums, "luck.unrated", sign)
        return
    get = sums.get
    sums["luck.rated"] = get("luck.rated", 0) + sign
    if won:
        sums["luck.observed"] = get("luck.observed", 0) + sign
    sums["luck.expected_e12"] = get("luck.expected_e12", 0) + sign * luck[0]
    sums["luck.variance_e12"] = get("luck.variance_e12", 0) + sign * luck[1]


# A roll kind's metrics, "rolls.<kind>" and "won.<kind>", made once per kind.
_KIND_METRICS: dict[str, tuple[str, str]] = {}


def _kind_metrics(kind: str) -> tuple[str, str]:
    metrics = _KIND_METRICS[kind] = (f"rolls.{kind}", f"won.{kind}")
    return metrics


def _count_rerolls(sums: Counts, roll: _Roll, side: int, spent: int, sign: int) -> None:
    """Count one side's rerolls and, in each round it rerolled in, its total after them
    less its total before the first (as domain.projections.facts does)."""
    request = roll.request
    asked = request.side if side == 0 or request.opponent is None else request.opponent
    shape = _shape(request, asked)
    _count(sums, "rerolls.spent", sign * spent)
    for number in range(1, max((e.round for e in roll.dice), default=1) + 1):
        events = [e for e in roll.dice if e.side == side and e.round == number]
        first = next((i for i, e in enumerate(events) if type(e) is rec.Rerolled), None)
        if first is not None:
            before = _replayed_total(shape, _segments(events[:first]))
            gain = _replayed_total(shape, _segments(events)) - before
            _count(sums, "rerolls.gain", sign * gain)


# A side's draws cut at its rerolls, as rolls.segments cuts them: the die each reroll
# replaced (None for the initial dice) and the (sides, face) drawn from there on. A total
# depends on nothing else of a draw (the engine reads no block, word or provenance).
Faces = tuple[tuple[int | None, tuple[tuple[int, int], ...]], ...]


def _segments(events: list[rec.DiceRecord]) -> Faces:
    parts: list[tuple[int | None, list[tuple[int, int]]]] = [(None, [])]
    for event in events:
        if type(event) is rec.Rerolled:
            parts.append((event.replaced, [(event.die.sides, event.die.face)]))
        elif type(event) is rec.Rolled:
            parts[-1][1].extend((die.sides, die.face) for die in event.dice)
        else:
            die = event.die  # type: ignore[union-attr]
            parts[-1][1].append((die.sides, die.face))
    return tuple((replaced, tuple(faces)) for replaced, faces in parts)


@lru_cache(maxsize=8192)
def _replayed_total(shape: Shape, faces: Faces) -> int:
    # Replayed through the engine once per shape and faces: damage rolls that reroll
    # repeat the same few dice.
    parts: list[Segment] = [
        (replaced, [Draw(sides, face, Provenance.MANUAL) for sides, face in drawn])
        for replaced, drawn in faces
    ]
    return replay_segments(shape_spec(shape), parts).total
