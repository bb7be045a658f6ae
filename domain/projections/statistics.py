"""The per-player statistics fold: each event turns into changes of integer counters.

Counters are keyed by (session, player, scope, metric). Scope ``all`` is what a GM of the
session sees (every roll but a self roll not yet shown); scope ``public`` is what everyone
else sees, where a roll not public counts only as ``excluded.hidden`` until it is revealed;
scope ``own`` adds, to a player's own row as they see it, their rolls the others may not
see (gm, self). A roll a player may not see is no part of their luck. A voided roll
counts only as ``excluded.voided``. Because every change is a difference of integer
counters, folding a log in one pass or in many batches gives the same numbers.

The fold keeps the state of the sessions it is working on. Given ``load_history``, it keeps
at most ``max_sessions`` of them and reloads an evicted one from its stream; without it,
it keeps every open session.

This is the readable statement of the counting rules, over whole domain events and the
full session state. The product counts with infra/projections/lean_statistics.py, which
decodes only the fields it reads; tests/infra/test_lean_statistics.py holds the two equal.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import assert_never

from diceledger.domain.errors import CorruptLogError
from diceledger.domain.projections.characters import played_characters
from diceledger.domain.projections.facts import Metrics, allowance_for, players_of, roll_facts
from diceledger.domain.projections.logged import Logged
from diceledger.domain.session import events as ev
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.state import Roll, SessionState, evolve
from diceledger.domain.session.visibility import EVERYONE, may_see

ALL = "all"
PUBLIC = "public"
# What a player sees of their own rolls beyond ``public``: a roll of theirs hidden from the
# others (gm, self) but not from them counts here, as its figures less its excluded.hidden.
OWN = "own"
SCOPES = (ALL, PUBLIC)

Key = tuple[str, str, str, str]  # session, player, scope, metric
Scoped = dict[str, dict[str, Metrics]]  # scope -> player -> metrics
Counts = Mapping[str, int]  # metric -> amount, as any fold hands them to a Tally
LoadHistory = Callable[[str, int], Iterable[Logged]]  # session, up to version -> events


@dataclass
class Tally:
    """Counter changes and member roles, as a batch produced them (or a whole fold)."""

    counters: Counter[Key] = field(default_factory=Counter)
    members: dict[tuple[str, str], str] = field(default_factory=dict)  # (session, name) -> role

    def add(self, session_id: str, scoped: Mapping[str, Mapping[str, Counts]], sign: int) -> None:
        """Add (sign 1) or take away (sign -1) a roll's scoped contribution."""
        counters = self.counters
        get = counters.get  # a Counter's += calls __missing__ for every new key
        shared = scoped.get(ALL) is scoped.get(PUBLIC)  # a roll everyone sees alike
        for scope, players in scoped.items():
            if shared and scope == PUBLIC:
                continue  # added with scope ALL, in the same pass
            for player, metrics in players.items():
                for metric, amount in metrics.items():
                    change = sign * amount
                    key = (session_id, player, scope, metric)
                    counters[key] = get(key, 0) + change
                    if shared and scope == ALL:
                        key = (session_id, player, PUBLIC, metric)
                        counters[key] = get(key, 0) + change

    def nonzero(self) -> dict[Key, int]:
        """Return the counter changes that are not zero."""
        return {key: amount for key, amount in self.counters.items() if amount}


@dataclass
class _Session:
    state: SessionState = field(default_factory=SessionState)
    allowances: dict[int, int] = field(default_factory=dict)  # roll id -> rerolls it could use
    played: dict[int, dict[str, str]] = field(default_factory=dict)  # roll id -> side -> character


class StatisticsFold:
    """Turn events, in position order, into counter changes.

    ``by_character`` keys the rolls' figures by the character each side counts for
    (domain.projections.characters) instead of by player; disputes, which are a player's,
    are then not counted. Keyed by character, scope own is counted for one member alone,
    ``own_of``: the viewer, whose own private rolls their characters' figures take.
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

    def apply(self, item: Logged, tally: Tally) -> None:
        """Fold one event into its session and record what it changes in ``tally``."""
        self.apply_event(item.stream_id, item.version, item.event, tally)

    def apply_event(self, stream_id: str, version: int, event: ev.Event, tally: Tally) -> None:
        """Fold the event recorded at ``version`` of a session (all the fold reads of it)."""
        session = self._session(stream_id, version)
        state = session.state
        if isinstance(event, ev.RollRequested):
            session.allowances[event.roll_id] = allowance_for(state, event)
            if self._by_character:
                session.played[event.roll_id] = played_characters(state, event)
        roll_id = ev.roll_id_of(event)
        roll = None if roll_id is None else state.rolls.get(roll_id)
        before = self._before(session, event, roll)
        # The end shows every self roll: each counts again, as everyone now sees it.
        ending = self._self_rolls(session) if isinstance(event, ev.SessionEnded) else []
        evolve(state, version, event)
        for shown, counted in ending:
            tally.add(stream_id, counted, -1)
            tally.add(stream_id, self._scoped(session, shown), 1)
        match event:
            # The most frequent events first: a match tries its cases in order.
            case (
                ev.DiceRolled()
                | ev.RollRequested()
                | ev.CheckResolved()
                | ev.RollResolved()
                | ev.DieExploded()
                | ev.DieRerolled()
                | ev.RollAccepted()
                | ev.OpposedCheckTied()
                | ev.RollRevealed()
                | ev.SessionStarted()
                | ev.SeedCommitted()
                | ev.SeedRevealed()
                | ev.SheetRightsSet()
                | ev.CharacterCreated()
                | ev.AttributeSet()
                | ev.QualitySet()
                | ev.RollSaved()
                | ev.CharacterRetired()
            ):
                pass  # counted through the roll's contribution below, if at all
            case ev.PlayerJoined():
                tally.members[(stream_id, event.name)] = event.role
            case ev.RollDisputed() | ev.DisputeResolved() if self._by_character:
                pass
            case ev.RollDisputed():
                self._count(tally, stream_id, event.by, "disputes.raised")
            case ev.DisputeResolved():
                assert roll is not None
                raiser = roll.disputes[-1].by
                self._count(tally, stream_id, raiser, f"disputes.{event.outcome}")
            case ev.SessionEnded():
                self._sessions.pop(stream_id, None)
            case _:
                assert_never(event)
        if before is not None:
            assert roll is not None
            tally.add(stream_id, before, -1)
            tally.add(stream_id, self._scoped(session, roll), 1)

    def _before(self, session: _Session, event: ev.Event, roll: Roll | None) -> Scoped | None:
        # The roll's contribution before the event, for the events that can change it.
        if roll is None:
            return None
        match event:
            case ev.RollResolved() | ev.CheckResolved():
                return {}
            case ev.DisputeResolved(outcome="voided") | ev.RollRevealed():
                return self._scoped(session, roll)
            case _:
                return None

    def _self_rolls(self, session: _Session) -> list[tuple[Roll, Scoped]]:
        return [
            (roll, self._scoped(session, roll))
            for roll in session.state.rolls.values()
            if roll.hidden and roll.mode is RollMode.SELF
        ]

    def _scoped(self, session: _Session, roll: Roll) -> Scoped:
        if roll.resolution is None:
            return {}
        played = session.played.get(roll.roll_id, {}) if self._by_character else None
        players = list(played) if played is not None else players_of(session.state, roll)
        state = session.state
        if roll.voided:
            shown = {name: Counter({"excluded.voided": 1}) for name in players}
        else:
            allowance = session.allowances.get(roll.roll_id, 0)
            shown = roll_facts(state, roll, allowance, players) if players else {}
            # Luck is a player's own: a roll they may not see (a GM's blind roll for them)
            # is no part of it, for any viewer.
            for name in shown:
                if played is None and not may_see(state, roll, name):
                    shown[name] = Counter(
                        {k: v for k, v in shown[name].items() if not k.startswith("luck.")}
                    )
        # A player sees their own roll that the others may not; by character, only the
        # figures of the one member they are counted for.
        own = {
            name: Counter(shown.get(name, {}))
            for name in players
            if (played is None or name == self._own_of)
            and not may_see(state, roll, EVERYONE)
            and may_see(state, roll, name)
        }
        for metrics in own.values():
            metrics["excluded.hidden"] = metrics.get("excluded.hidden", 0) - 1
        if played is not None:  # the same figures, under each side's character
            shown = {played[name]: metrics for name, metrics in shown.items()}
            own = {played[name]: metrics for name, metrics in own.items()}
            players = [played[name] for name in players]
        # Scope public is what EVERYONE may see, by the one visibility rule; scope all is
        # what every GM sees: all but a self roll not yet shown (its roller alone sees it).
        hidden = {name: Counter({"excluded.hidden": 1}) for name in players}
        if may_see(state, roll, EVERYONE):
            return {ALL: shown, PUBLIC: shown}
        every_gm = hidden if roll.mode is RollMode.SELF else shown
        return {ALL: every_gm, PUBLIC: hidden, OWN: own} if own else {ALL: every_gm, PUBLIC: hidden}

    @staticmethod
    def _count(tally: Tally, session_id: str, player: str, metric: str) -> None:
        for scope in SCOPES:
            tally.counters[(session_id, player, scope, metric)] += 1

    def _session(self, stream_id: str, version: int) -> _Session:
        session = self._sessions.get(stream_id)
        if session is not None:
            self._sessions.move_to_end(stream_id)
            return session
        session = _Session()
        if version > 1:
            if self._load_history is None:
                raise CorruptLogError(
                    f"statistics: {stream_id} v{version} arrived without its history"
                )
            for earlier in self._load_history(stream_id, version - 1):
                self._replay(session, earlier)
        self._sessions[stream_id] = session
        if self._load_history is not None and len(self._sessions) > self._max_sessions:
            self._sessions.popitem(last=False)
        return session

    def _replay(self, session: _Session, item: Logged) -> None:
        # Rebuild a session's state from its stream without counting anything again.
        if isinstance(item.event, ev.RollRequested):
            session.allowances[item.event.roll_id] = allowance_for(session.state, item.event)
            if self._by_character:
                session.played[item.event.roll_id] = played_characters(session.state, item.event)
        evolve(session.state, item.version, item.event)


def fold_statistics(
    logged: Iterable[Logged], by_character: bool = False, own_of: str | None = None
) -> Tally:
    """Fold a whole log (in position order) into its counters and member roles; with
    ``by_character``, the rolls' figures are keyed by character instead of player, and
    scope own counted for ``own_of`` alone."""
    fold, tally = StatisticsFold(by_character=by_character, own_of=own_of), Tally()
    for item in logged:
        fold.apply(item, tally)
    return tally
