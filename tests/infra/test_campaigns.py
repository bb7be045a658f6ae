"""Campaigns: one group's sessions, and their statistics summed from the sessions' own.

The dice are typed in, so every figure is known in advance: a campaign's totals are the
sum of its sessions' figures (exact odds and variances added, never averaged), each viewer
sees in each session only what they may see there, and a refusal records nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import (
    CommandRefusedError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    StoreUnavailableError,
)
from diceledger.domain.projections.report import ACROSS_SESSIONS, PlayerReport
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.infra.app.application import Application
from diceledger.infra.bootstrap import bootstrap, in_memory
from diceledger.infra.store.database import make_engine


def check(
    face: int, target: int, blind: bool = False, on_behalf_of: str | None = None
) -> cmd.RequestRoll:
    return cmd.RequestRoll(
        RollKind.CHECK,
        "1d20+1",
        target=Target(target),
        faces=(face,),
        mode=RollMode.BLIND if blind else RollMode.PUBLIC,
        on_behalf_of=on_behalf_of,
    )


@pytest.fixture
def app(sql_url: str, tmp_path: Path) -> Iterator[Application]:
    built = bootstrap(sql_url, signing_key=tmp_path / "signing.key")
    yield built
    built.close()


def evening(app: Application, campaign_id: str, title: str, players: tuple[str, ...]) -> str:
    sid = app.campaigns.start_session("gm", campaign_id, title).session_id
    for name in players:
        app.join(name, sid, cmd.JoinSession(name))
    return sid


def num(report: PlayerReport, group: str, metric: str) -> float:
    value = report.groups[group][metric]
    assert value is not None
    return value


def by_player(reports: tuple[PlayerReport, ...]) -> dict[tuple[str, str], PlayerReport]:
    return {(r.session_id, r.player): r for r in reports}


def test_campaign_totals_are_the_sums_of_two_evenings_worked_by_hand(app: Application) -> None:
    campaign = app.campaigns.start("gm", "Ashen Crown")
    one = evening(app, campaign.campaign_id, "Evening one", ("ann", "bob"))
    app.request_roll("ann", one, check(15, 11))  # 16 vs 11: won, p(win) = 11/20
    app.request_roll("ann", one, check(2, 11))  # 3 vs 11: lost, p = 11/20
    two = evening(app, campaign.campaign_id, "Evening two", ("ann",))
    app.request_roll("ann", two, check(19, 16))  # 20 vs 16: won, p(win) = 6/20
    stats = app.campaigns.statistics("ann", campaign.campaign_id)
    # bob rolled nothing: no report of his
    assert [(r.session_id, r.player) for r in stats.per_session] == [(one, "ann"), (two, "ann")]
    total = by_player(stats.totals)[(ACROSS_SESSIONS, "ann")].groups
    assert total["outcomes"]["made"] == 3 and total["outcomes"]["won"] == 2
    assert total["luck"]["expected"] == pytest.approx(11 / 20 + 11 / 20 + 6 / 20)
    variance = 2 * (11 / 20) * (9 / 20) + (6 / 20) * (14 / 20)
    assert total["luck"]["sd"] == pytest.approx(math.sqrt(variance), abs=1e-6)
    assert total["luck"]["z_score"] == pytest.approx((2 - 1.4) / math.sqrt(variance), abs=1e-6)
    # Averaging the two evenings' z-scores would not give the campaign's.
    zs = [num(r, "luck", "z_score") for r in stats.per_session if r.player == "ann"]
    assert sum(zs) / 2 != pytest.approx(total["luck"]["z_score"])


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    evenings=st.lists(
        st.lists(st.tuples(st.integers(1, 19), st.integers(2, 21)), min_size=0, max_size=4),
        min_size=1,
        max_size=3,
    )
)
def test_campaign_statistics_equal_the_sum_of_the_per_session_figures(
    app: Application, evenings: list[list[tuple[int, int]]]
) -> None:
    campaign = app.campaigns.start("gm", "Summed")
    sessions = []
    for number, rolls in enumerate(evenings):
        sid = evening(app, campaign.campaign_id, f"Evening {number}", ("ann",))
        for face, target in rolls:
            app.request_roll("ann", sid, check(face, target))
        sessions.append(sid)
    stats = app.campaigns.statistics("ann", campaign.campaign_id)
    each = [r for r in stats.per_session if r.player == "ann"]
    alone = [app.statistics("ann", sid).reports for sid in sessions]
    assert [r.groups for r in each] == [
        next(r for r in reports if r.player == "ann").groups for reports in alone if reports
    ]
    if not each:
        assert stats.totals == ()
        return
    total = by_player(stats.totals)[(ACROSS_SESSIONS, "ann")]
    for group, metric in (("outcomes", "made"), ("outcomes", "won"), ("rolls", "total")):
        assert num(total, group, metric) == sum(num(r, group, metric) for r in each)
    for metric in ("observed", "expected"):
        summed = sum(num(r, "luck", metric) for r in each)
        assert num(total, "luck", metric) == pytest.approx(summed, abs=1e-5)
    variances = sum(num(r, "luck", "sd") ** 2 for r in each)
    assert num(total, "luck", "sd") ** 2 == pytest.approx(variances, abs=1e-5)
    faces = [sum(col) for col in zip(*(d.faces for r in each for d in r.dice), strict=True)]
    assert [d.faces for d in total.dice] == [tuple(faces)]


def test_a_hidden_blind_roll_stays_hidden_from_a_player_and_counts_for_the_gm(
    app: Application,
) -> None:
    campaign = app.campaigns.start("gm", "Secrets")
    sid = evening(app, campaign.campaign_id, "Evening one", ("ann",))
    app.request_roll("gm", sid, check(17, 11, blind=True, on_behalf_of="ann"))
    as_ann = by_player(app.campaigns.statistics("ann", campaign.campaign_id).totals)
    as_gm = by_player(app.campaigns.statistics("gm", campaign.campaign_id).totals)
    ann_seen = as_ann[(ACROSS_SESSIONS, "ann")].groups
    assert ann_seen["outcomes"]["made"] == 0 and ann_seen["excluded"]["hidden"] == 1
    assert as_gm[(ACROSS_SESSIONS, "ann")].groups["outcomes"]["made"] == 1


def test_a_viewer_sees_nothing_of_a_session_they_are_not_a_member_of(app: Application) -> None:
    campaign = app.campaigns.start("gm", "Two tables")
    one = evening(app, campaign.campaign_id, "Evening one", ("ann",))
    two = evening(app, campaign.campaign_id, "Evening two", ("bob",))
    app.request_roll("ann", one, check(15, 11))
    app.request_roll("bob", two, check(15, 11))
    stats = app.campaigns.statistics("ann", campaign.campaign_id)
    assert {r.session_id for r in stats.per_session} == {one}
    assert [s.role for s in stats.campaign.sessions] == ["player", None]
    assert {r.player for r in stats.totals} == {"ann"}


def test_a_credential_of_a_session_outside_the_campaign_finds_no_campaign(app: Application) -> None:
    campaign = app.campaigns.start("gm", "Closed")
    inside = evening(app, campaign.campaign_id, "Inside", ("ann",))
    outside = app.start_session("gm", "Outside").session_id
    assert app.campaigns.show("ann", campaign.campaign_id, via=inside).title == "Closed"
    with pytest.raises(NotFoundError, match="no campaign"):
        app.campaigns.show("gm", campaign.campaign_id, via=outside)
    with pytest.raises(NotFoundError, match="no campaign"):
        app.campaigns.statistics("gm", "c-nowhere-000000")


def test_only_a_gm_of_the_group_adds_a_session_and_a_refusal_records_nothing(
    app: Application, sql_url: str
) -> None:
    campaign = app.campaigns.start("gm", "Guarded")
    sid = evening(app, campaign.campaign_id, "Evening one", ("ann",))
    before = counts(sql_url)
    with pytest.raises(PermissionDeniedError):
        app.campaigns.start_session("ann", campaign.campaign_id, "Ann's own")
    with pytest.raises(PermissionDeniedError):
        app.campaigns.start_session("ann", campaign.campaign_id, "Via", via=sid)
    with pytest.raises(PermissionDeniedError):
        app.campaigns.start_session("stranger", campaign.campaign_id, "Nobody's")
    with pytest.raises(InvalidInputError):
        app.campaigns.start("gm", "   ")
    assert counts(sql_url) == before
    app.join("gm", sid, cmd.JoinSession("cora", as_gm=True))
    app.campaigns.start_session("cora", campaign.campaign_id, "A co-GM's evening", via=sid)
    assert len(app.campaigns.show("gm", campaign.campaign_id).sessions) == 2


def test_a_session_belongs_to_one_campaign_only(app: Application, sql_url: str) -> None:
    first = app.campaigns.start("gm", "First")
    sid = evening(app, first.campaign_id, "Evening one", ())
    before = counts(sql_url)
    with pytest.raises(CommandRefusedError, match="already belongs"):
        app.campaigns.start("gm", "Second", first_session=sid)
    assert counts(sql_url) == before
    assert app.campaigns.campaign_of(sid) == first.campaign_id


def test_the_campaign_tables_refuse_update_and_delete(app: Application, sql_url: str) -> None:
    campaign = app.campaigns.start("gm", "Kept")
    evening(app, campaign.campaign_id, "Evening one", ())
    engine = make_engine(sql_url)
    try:
        for statement in (
            "UPDATE campaigns SET title = 'Rewritten'",
            "DELETE FROM campaign_sessions",
        ):
            with pytest.raises(sa.exc.DBAPIError, match="append-only"), engine.begin() as c:
                c.execute(sa.text(statement))
    finally:
        engine.dispose()
    assert app.campaigns.show("gm", campaign.campaign_id).title == "Kept"


def test_an_in_memory_store_says_campaigns_need_a_database() -> None:
    with pytest.raises(StoreUnavailableError, match="need a database"):
        in_memory().campaigns.all()


def counts(url: str) -> tuple[int, ...]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return tuple(
                connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
                for table in ("events", "campaigns", "campaign_sessions")
            )
    finally:
        engine.dispose()
