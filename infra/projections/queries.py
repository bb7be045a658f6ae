"""Read the statistics projection as a viewer may see it, without replaying events."""

from __future__ import annotations

from collections.abc import Collection, Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from diceledger.domain.projections import report
from diceledger.domain.projections.report import Visible
from diceledger.domain.projections.statistics import ALL, OWN, PUBLIC
from diceledger.infra.projections.lean_statistics import fold_log
from diceledger.infra.projections.schema import stat_counters, stat_members
from diceledger.infra.store.database import translate_errors
from diceledger.infra.store.port import EventStore, event_data

FETCH_SIZE = 10_000


def visible_counters(
    engine: Engine,
    viewer: str,
    session_id: str | None = None,
    player: str | None = None,
    within: Collection[str] | None = None,
) -> Iterator[Visible]:
    """Yield (session, player, metric, amount) in the scope the viewer may see per session,
    of the sessions ``within`` (a campaign's) when given."""
    role = (
        sa.select(stat_members.c.role)
        .where(stat_members.c.session_id == stat_counters.c.session_id)
        .where(stat_members.c.name == viewer)
        .scalar_subquery()
    )
    gm = sa.func.coalesce(role, "") == "gm"
    # As domain.projections.report.visible_counters: a GM's scope is all, anyone else's
    # public, plus, for their own figures, own (their rolls the others may not see).
    own = sa.and_(stat_counters.c.scope == OWN, stat_counters.c.player == viewer, sa.not_(gm))
    scope = sa.case((gm, ALL), else_=PUBLIC)
    query = sa.select(
        stat_counters.c.session_id,
        stat_counters.c.player,
        stat_counters.c.metric,
        stat_counters.c.value,
    ).where(sa.or_(stat_counters.c.scope == scope, own))
    if session_id is not None:
        query = query.where(stat_counters.c.session_id == session_id)
    if player is not None:
        query = query.where(stat_counters.c.player == player)
    if within is not None:
        query = query.where(stat_counters.c.session_id.in_(sorted(within)))
    with translate_errors(engine.url), engine.connect() as connection:
        result = connection.execution_options(yield_per=FETCH_SIZE).execute(query)
        for row in result:
            yield row.session_id, row.player, row.metric, row.value


def has_session(engine: Engine, session_id: str) -> bool:
    """Tell whether the projection knows the session."""
    query = sa.select(stat_members.c.session_id).where(stat_members.c.session_id == session_id)
    with translate_errors(engine.url), engine.connect() as connection:
        return connection.execute(query.limit(1)).first() is not None


def folded_counters(
    store: EventStore,
    viewer: str,
    session_id: str | None = None,
    player: str | None = None,
    within: Collection[str] | None = None,
) -> tuple[bool, list[Visible]]:
    """Return whether the session is known and the counters the viewer may see, folded
    in memory from the whole log (for a database that cannot be written)."""
    tally = fold_log(store.read_all_data(), store)
    known = session_id is None or any(s == session_id for s, _ in tally.members)
    visible = report.visible_counters(tally.nonzero().items(), tally.members, viewer)
    rows = [
        row
        for row in visible
        if session_id in (None, row[0])
        and player in (None, row[1])
        and (within is None or row[0] in within)
    ]
    return known, rows


def character_counters(store: EventStore, viewer: str, within: Collection[str]) -> list[Visible]:
    """Return the per-character counters of those sessions the viewer may see, folded in
    memory from their logs (a campaign's few sessions; nothing is kept).

    A GM sees scope all; anyone else public, and their own private rolls in the figures
    of the characters they rolled them with (scope own, counted for the viewer alone).
    """
    rows: list[Visible] = []
    for session_id in within:
        items = map(event_data, store.read_stream(session_id))
        tally = fold_log(items, store, by_character=True, own_of=viewer)
        gm = tally.members.get((session_id, viewer)) == "gm"
        wanted = {ALL} if gm else {PUBLIC, OWN}
        rows += [
            (s, name, metric, amount)
            for (s, name, scope, metric), amount in tally.nonzero().items()
            if scope in wanted
        ]
    return rows
