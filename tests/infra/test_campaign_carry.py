"""Characters carried from one session of a campaign to the next, each session proving itself.

The dice are typed in. The second session's own log holds the sheets it starts from, as
the first session left them, and verifies alone: its rolls read the carried values.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import NotAMemberError, NotFoundError
from diceledger.domain.projections.report import PlayerReport
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.context import Context
from diceledger.domain.session.decide import decide
from diceledger.domain.session.modes import RollMode
from diceledger.domain.session.state import SessionState, replay
from diceledger.infra.app.application import Application
from diceledger.infra.bootstrap import bootstrap


@pytest.fixture
def app(sql_url: str, tmp_path: Path) -> Iterator[Application]:
    built = bootstrap(sql_url, signing_key=tmp_path / "signing.key")
    yield built
    built.close()


def first_evening(app: Application) -> tuple[str, str]:
    """gm and ann; ann's Thalia (STR +3, then +4), the NPC Goblin, a retired Old Hob."""
    campaign = app.campaigns.start("gm", "Ashen Crown").campaign_id
    one = app.campaigns.start_session("gm", campaign, "Evening one").session_id
    app.join("ann", one, cmd.JoinSession("ann"))
    sheet: list[tuple[str, cmd.SheetCommand]] = [
        ("ann", cmd.CreateCharacter("Thalia", "ann")),
        ("ann", cmd.SetAttribute("Thalia", "STR", 3, "Strength")),
        ("ann", cmd.SetQuality("Thalia", "Athletics", 2)),
        ("ann", cmd.SaveRoll("Thalia", "Longsword", RollKind.CHECK, "1d20+@STR")),
        ("gm", cmd.CreateCharacter("Goblin", None)),
        ("gm", cmd.SetAttribute("Goblin", "DEX", 2)),
        ("gm", cmd.CreateCharacter("Old Hob", None)),
        ("gm", cmd.RetireCharacter("Old Hob")),
    ]
    for actor, command in sheet:
        app.change_sheet(actor, one, command)
    app.request_roll("ann", one, cmd.RequestRoll(RollKind.EFFECT, "1d20+@STR", faces=(10,)))
    # Changed during the first evening: the later value is the one carried.
    app.change_sheet("gm", one, cmd.SetAttribute("Thalia", "STR", 4, "Strength"))
    app.end_session("gm", one)
    return campaign, one


def test_the_next_session_starts_with_the_sheets_as_the_last_one_ended(app: Application) -> None:
    campaign, _ = first_evening(app)
    two = app.campaigns.start_session("gm", campaign, "Evening two")
    sheets = app.characters(two.session_id)
    thalia = sheets.find("Thalia")
    assert thalia is not None and thalia.owner == "ann" and not thalia.retired
    assert [(a.name, a.value, a.label) for a in thalia.attributes] == [("STR", 4, "Strength")]
    assert [(q.name, q.value) for q in thalia.qualities] == [("Athletics", 2)]
    assert [(s.name, s.expression) for s in thalia.saved] == [("Longsword", "1d20+@STR")]
    goblin = sheets.find("Goblin")
    assert goblin is not None and goblin.owner is None
    assert [(a.name, a.value) for a in goblin.attributes] == [("DEX", 2)]
    assert sheets.find("Old Hob") is None  # a retired character stays behind
    # The start and the sheets are one append by the starting GM, in the session's own log.
    assert {r.meta["actor"] for r in two.appended} == {"gm"}
    assert [r.event_type for r in two.appended] == [
        "SessionStarted",
        "PlayerJoined",
        "SeedCommitted",
        "CharacterCreated",
        "AttributeSet",
        "QualitySet",
        "RollSaved",
        "CharacterCreated",
        "AttributeSet",
    ]


def test_r4_a_carried_characters_mod_is_read_once_its_owner_joins(app: Application) -> None:
    campaign, _ = first_evening(app)
    two = app.campaigns.start_session("gm", campaign, "Evening two").session_id
    refused = cmd.RequestRoll(RollKind.EFFECT, "1d20+@STR", faces=(5,))
    with pytest.raises(NotAMemberError):  # ann has not joined yet
        app.request_roll("ann", two, refused)
    app.join("ann", two, cmd.JoinSession("ann"))
    rolled = app.request_roll(
        "ann", two, cmd.RequestRoll(RollKind.CHECK, "1d20+@STR", target=Target(15), faces=(11,))
    )
    assert rolled.view["total"] == 15  # 11 + STR 4, carried from the first evening
    app.end_session("gm", two)
    # The second session verifies alone: its log holds every value its rolls read.
    assert app.verify_session(two).ok


def test_a_session_started_with_carried_sheets_verifies_before_anyone_joins(
    app: Application,
) -> None:
    campaign, one = first_evening(app)
    two = app.campaigns.start_session("gm", campaign, "Evening two").session_id
    assert app.verify_session(two).ok
    assert app.verify_session(one).ok


def test_only_a_starting_gm_carries_a_character_to_someone_who_has_not_joined() -> None:
    start = cmd.StartSession("s2", "Evening two", "c" * 64)
    carried = cmd.StartSession(
        "s2", "Evening two", "c" * 64, carried=(cmd.CreateCharacter("Thalia", "ann"),)
    )
    events = decide(SessionState(), carried, Context("gm"))
    created = events[-1]
    assert isinstance(created, ev.CharacterCreated) and created.owner == "ann"
    # Outside a start, the same command for a name not in the session is refused.
    state = replay(enumerate(decide(SessionState(), start, Context("gm")), start=1))
    with pytest.raises(NotFoundError, match="ann is not in session 's2'"):
        decide(state, cmd.CreateCharacter("Thalia", "ann"), Context("gm"))


def sheet_check(
    expression: str, face: int, target: int, for_: str | None = None, blind: bool = False
) -> cmd.RequestRoll:
    return cmd.RequestRoll(
        RollKind.CHECK,
        expression,
        target=Target(target),
        faces=(face,),
        on_behalf_of=for_,
        mode=RollMode.BLIND if blind else RollMode.PUBLIC,
    )


def figures(reports: tuple[PlayerReport, ...], session: str, name: str) -> dict[str, float]:
    found = {(r.session_id, r.player): r for r in reports}[(session, name)].groups
    return {
        "made": found["outcomes"]["made"] or 0,
        "won": found["outcomes"]["won"] or 0,
        "expected": found["luck"]["expected"] or 0,
        "sd": found["luck"]["sd"] or 0,
        "hidden": found["excluded"]["hidden"] or 0,
    }


def test_luck_per_character_is_summed_over_the_campaign_worked_by_hand(app: Application) -> None:
    campaign = app.campaigns.start("gm", "Ashen Crown").campaign_id
    one = app.campaigns.start_session("gm", campaign, "Evening one").session_id
    app.join("ann", one, cmd.JoinSession("ann"))
    sheet: list[tuple[str, cmd.SheetCommand]] = [
        ("ann", cmd.CreateCharacter("Thalia", "ann")),
        ("ann", cmd.SetAttribute("Thalia", "STR", 3)),
        ("gm", cmd.CreateCharacter("Goblin", None)),
        ("gm", cmd.SetAttribute("Goblin", "DEX", 2)),
    ]
    for actor, command in sheet:
        app.change_sheet(actor, one, command)
    # Thalia: 15+3 vs 11 won, p = P(d20 >= 8) = 13/20; read from her sheet.
    app.request_roll("ann", one, sheet_check("1d20+@STR", 15, 11))
    # Thalia again, no reference: ann plays her. 2+1 vs 11 lost, p = P(d20 >= 10) = 11/20.
    app.request_roll("ann", one, sheet_check("1d20+1", 2, 11))
    # The Goblin, rolled by the GM: 5+2 vs 10 lost, p = 13/20.
    app.request_roll("gm", one, sheet_check("1d20+@DEX", 5, 10, for_="Goblin"))
    app.change_sheet("gm", one, cmd.SetAttribute("Thalia", "STR", 4))
    app.end_session("gm", one)
    two = app.campaigns.start_session("gm", campaign, "Evening two").session_id
    app.join("ann", two, cmd.JoinSession("ann"))
    # Thalia with the carried STR 4: 19+4 vs 16 won, p = P(d20 >= 12) = 9/20.
    app.request_roll("ann", two, sheet_check("1d20+@STR", 19, 16))
    # A blind Goblin roll: the GM counts it (18+2 vs 10 won, p = 13/20); ann only as hidden.
    app.request_roll("gm", two, sheet_check("1d20+@DEX", 18, 10, for_="Goblin", blind=True))

    seen = app.campaigns.statistics("ann", campaign)
    assert [(r.session_id, r.player) for r in seen.characters] == [
        (one, "Goblin"),
        (one, "Thalia"),
        (two, "Goblin"),
        (two, "Thalia"),
        ("ALL", "Goblin"),
        ("ALL", "Thalia"),
    ]
    thalia = {s: figures(seen.characters, s, "Thalia") for s in (one, two, "ALL")}
    assert (thalia[one]["made"], thalia[one]["won"]) == (2, 1)
    assert thalia[one]["expected"] == pytest.approx(13 / 20 + 11 / 20)
    assert thalia[two]["expected"] == pytest.approx(9 / 20)
    # Summed, not averaged: the odds and the variances add up over the evenings.
    assert (thalia["ALL"]["made"], thalia["ALL"]["won"]) == (3, 2)
    assert thalia["ALL"]["expected"] == pytest.approx(33 / 20)
    variance = (13 / 20) * (7 / 20) + (11 / 20) * (9 / 20) + (9 / 20) * (11 / 20)
    assert thalia["ALL"]["sd"] == pytest.approx(math.sqrt(variance), abs=1e-6)
    assert thalia["ALL"]["sd"] ** 2 == pytest.approx(
        thalia[one]["sd"] ** 2 + thalia[two]["sd"] ** 2, abs=1e-5
    )
    # What each viewer may see: ann does not see the blind Goblin roll; a GM of it does.
    assert figures(seen.characters, "ALL", "Goblin") == pytest.approx(
        {"made": 1, "won": 0, "expected": 13 / 20, "sd": math.sqrt(0.2275), "hidden": 1}
    )
    by_gm = figures(app.campaigns.statistics("gm", campaign).characters, "ALL", "Goblin")
    assert (by_gm["made"], by_gm["won"], by_gm["hidden"]) == (2, 1, 0)
    assert by_gm["expected"] == pytest.approx(26 / 20)
    # ann played only Thalia: her player figures are Thalia's.
    ann = figures(seen.totals, "ALL", "ann")
    assert ann == pytest.approx(thalia["ALL"])


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    evenings=st.lists(
        st.tuples(
            st.integers(-3, 5),
            st.lists(st.tuples(st.integers(1, 19), st.integers(2, 21)), max_size=3),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_a_characters_campaign_figures_are_the_sums_of_its_evenings(
    app: Application, evenings: list[tuple[int, list[tuple[int, int]]]]
) -> None:
    campaign = app.campaigns.start("gm", "Summed").campaign_id
    for number, (strength, rolls) in enumerate(evenings):
        sid = app.campaigns.start_session("gm", campaign, f"Evening {number}").session_id
        app.join("ann", sid, cmd.JoinSession("ann"))
        if number == 0:  # created once; every later evening carries it
            app.change_sheet("ann", sid, cmd.CreateCharacter("Thalia", "ann"))
        app.change_sheet("gm", sid, cmd.SetAttribute("Thalia", "STR", strength))
        for face, target in rolls:
            app.request_roll("ann", sid, sheet_check("1d20+@STR", face, target))
    stats = app.campaigns.statistics("ann", campaign)
    each = [r for r in stats.characters if r.session_id != "ALL"]
    # ann plays only Thalia, and every roll read her sheet: the same figures, evening by
    # evening and over the campaign, as ann's own.
    assert [(r.session_id, r.groups, r.dice) for r in each] == [
        (r.session_id, r.groups, r.dice) for r in stats.per_session
    ]
    if not each:
        assert stats.characters == ()
        return
    total = figures(stats.characters, "ALL", "Thalia")
    for metric in ("made", "won", "expected"):
        summed = sum(figures(stats.characters, r.session_id, "Thalia")[metric] for r in each)
        assert total[metric] == pytest.approx(summed, abs=1e-5)
    variances = sum(figures(stats.characters, r.session_id, "Thalia")["sd"] ** 2 for r in each)
    assert total["sd"] ** 2 == pytest.approx(variances, abs=1e-5)
