"""Rolls that read the sheet: ``@STR`` from the acting side's own character (R4, R6)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import RollError
from diceledger.domain.session import commands as cmd
from diceledger.domain.session import events as ev
from diceledger.domain.session.decide_rolls import resolution
from diceledger.domain.session.events import CheckSide
from diceledger.domain.session.rolls import replay_state
from diceledger.domain.session.state import replay
from tests.domain.session.harness import Table, event_as


def table() -> Table:
    """ann plays Thalia (STR +3, Athletics +2), bob plays Brak (STR -1), the GMs' Goblin
    has WIS +2 and DEX +1."""
    t = Table()
    t.run("ann", cmd.CreateCharacter("Thalia", "ann"))
    t.run("ann", cmd.SetAttribute("Thalia", "STR", 3))
    t.run("ann", cmd.SetQuality("Thalia", "Athletics", 2))
    t.run("bob", cmd.CreateCharacter("Brak", "bob"))
    t.run("bob", cmd.SetAttribute("Brak", "STR", -1))
    t.run("gm", cmd.CreateCharacter("Goblin", None))
    t.run("gm", cmd.SetAttribute("Goblin", "WIS", 2))
    t.run("gm", cmd.SetAttribute("Goblin", "DEX", 1))
    return t


def request_of(events: list[ev.Event]) -> ev.RollRequested:
    return next(e for e in events if isinstance(e, ev.RollRequested))


def test_r6_a_roll_reads_the_acting_members_own_sheet_and_records_reference_and_value() -> None:
    t = table()
    events = t.run("ann", cmd.RequestRoll(RollKind.EFFECT, "1d20+@STR+@Athletics"), faces=(10,))
    request = request_of(events)
    assert request.side.expression == "1d20+3[STR]+2[Athletics]"
    assert request.asked == ("1d20+@STR+@Athletics",)
    set_at = t.state.characters["Thalia"].attributes["STR"].set_at
    assert request.references[0] == ev.SheetValue("roll", 0, "Thalia", "STR", 3, set_at)
    assert event_as(ev.RollResolved, events[-1]).total == 15


def test_r4_a_dc_by_reference_is_ten_plus_the_origins_mod() -> None:
    t = table()
    save = cmd.RequestRoll(RollKind.SAVE, "1d20+@STR", dc_reference="WIS", against="Goblin")
    events = t.run("bob", save, faces=(12,))
    request = request_of(events)
    assert (request.target, request.dc_modifier, request.dc_label) == (12, 2, "WIS")
    assert [(r.use, r.character, r.name, r.value) for r in request.references] == [
        ("roll", "Brak", "STR", -1),
        ("dc", "Goblin", "WIS", 2),
    ]
    resolved = event_as(ev.CheckResolved, events[-1])
    assert (resolved.total, resolved.success) == (11, False)


def test_r4_a_dc_by_reference_names_its_origin() -> None:
    t = table()
    error = t.refused("bob", cmd.RequestRoll(RollKind.SAVE, "1d20", dc_reference="WIS"))
    assert isinstance(error, RollError)


def test_r6_an_opposed_check_takes_each_sides_mod_from_that_sides_own_character() -> None:
    t = table()
    check = cmd.RequestOpposed(CheckSide("ann", "1d20+@STR"), CheckSide("bob", "1d20+@STR"))
    events = t.run("ann", check, faces=(10, 10))
    request = request_of(events)
    assert request.side.expression == "1d20+3[STR]"
    assert request.opponent is not None and request.opponent.expression == "1d20+(-1[STR])"
    resolved = event_as(ev.CheckResolved, events[-1])
    assert (resolved.total, resolved.opponent_total, resolved.winner) == (13, 9, "ann")


def test_r6_the_requester_cannot_set_the_number_of_an_opponent_with_a_sheet() -> None:
    t = table()
    before = list(t.events)
    cheat = cmd.RequestOpposed(CheckSide("ann", "1d20+@STR"), CheckSide("bob", "1d20-5[STR]"))
    error = t.refused("ann", cheat)
    assert isinstance(error, RollError) and "each side's MODs are its own" in str(error)
    assert t.events == before


def test_r6_a_gm_rolls_an_npc_side_from_the_npcs_sheet() -> None:
    t = table()
    check = cmd.RequestOpposed(CheckSide("Goblin", "1d20+@DEX"), CheckSide("ann", "1d20+@STR"))
    events = t.run("gm", check, faces=(15, 12))
    resolved = event_as(ev.CheckResolved, events[-1])
    assert (resolved.total, resolved.opponent_total, resolved.winner) == (16, 15, "Goblin")


def test_r4_r6_a_reference_to_a_missing_attribute_is_refused_in_one_line_appending_nothing() -> (
    None
):
    t = table()
    before = list(t.events)
    missing = t.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "1d20+@CHA"))
    assert str(missing) == "Thalia's sheet has no attribute or Quality 'CHA'"
    t.run("gm", cmd.JoinSession("cy"))
    before = list(t.events)
    nobody = t.refused("cy", cmd.RequestRoll(RollKind.EFFECT, "1d20+@STR"))
    assert str(nobody) == "cy has no character to read @STR from"
    dc = t.refused(
        "ann", cmd.RequestRoll(RollKind.SAVE, "1d20", dc_reference="CHA", against="Goblin")
    )
    assert str(dc) == "Goblin's sheet has no attribute or Quality 'CHA'"
    assert all(isinstance(e, RollError) for e in (missing, nobody, dc))
    assert t.events == before


def test_r4_r6_a_value_changed_between_two_rolls_gives_each_roll_its_own() -> None:
    t = table()
    first = t.run("ann", cmd.RequestRoll(RollKind.EFFECT, "1d20+@STR"), faces=(10,))
    t.run("ann", cmd.SetAttribute("Thalia", "STR", 4))
    second = t.run("ann", cmd.RequestRoll(RollKind.EFFECT, "1d20+@STR"), faces=(10,))
    assert [event_as(ev.RollResolved, e[-1]).total for e in (first, second)] == [13, 14]
    values = [request_of(e).references[0] for e in (first, second)]
    assert [v.value for v in values] == [3, 4]
    assert values[0].set_at < values[1].set_at


def test_r2_a_typed_in_mod_still_works_beside_the_sheet() -> None:
    t = table()
    events = t.run("ann", cmd.RequestRoll(RollKind.EFFECT, "1d20+3[STR]"), faces=(10,))
    assert request_of(events).references == () and request_of(events).asked == ()
    assert event_as(ev.RollResolved, events[-1]).total == 13


def test_a_retired_characters_sheet_is_no_longer_rolled_from() -> None:
    t = table()
    t.run("ann", cmd.RetireCharacter("Thalia"))
    error = t.refused("ann", cmd.RequestRoll(RollKind.EFFECT, "1d20+@STR"))
    assert str(error) == "ann has no character to read @STR from"


NAMES = ("STR", "DEX", "WIS", "Athletics", "Stealth")


@settings(max_examples=60, deadline=None)
@given(
    sheet=st.fixed_dictionaries({name: st.integers(-20, 20) for name in NAMES}),
    terms=st.lists(
        st.tuples(st.sampled_from(("+", "-", "*")), st.sampled_from(NAMES)),
        min_size=1,
        max_size=4,
    ),
    faces=st.lists(st.integers(1, 20), min_size=1, max_size=1).map(tuple),
    target=st.integers(-30, 40),
)
def test_r4_r6_rolls_from_random_sheets_total_as_the_same_rolls_with_values_written_out(
    sheet: dict[str, int],
    terms: list[tuple[str, str]],
    faces: tuple[int, ...],
    target: int,
) -> None:
    referenced, written = Table(), Table()
    referenced.run("ann", cmd.CreateCharacter("Thalia", "ann"))
    for name, value in sheet.items():
        kind = cmd.SetAttribute if name.isupper() else cmd.SetQuality
        referenced.run("ann", kind("Thalia", name, value))
    with_refs = "1d20n" + "".join(f"{op}@{name}" for op, name in terms)
    by_hand = "1d20n" + "".join(
        f"{op}{sheet[name]}[{name}]" if sheet[name] >= 0 else f"{op}(-{-sheet[name]}[{name}])"
        for op, name in terms
    )
    results = []
    for t, text in ((referenced, with_refs), (written, by_hand)):
        events = t.run("ann", cmd.RequestRoll(RollKind.CHECK, text, target=Target(target)), faces)
        resolved = event_as(ev.CheckResolved, events[-1])
        results.append((resolved.total, resolved.success, resolved.margin))
    # Replayed from the log, the request resolves again to the same total.
    roll = replay(enumerate(referenced.events, start=1)).rolls[1]
    again = event_as(ev.CheckResolved, resolution(roll.request, replay_state(roll)))
    assert results[0] == results[1] == (again.total, again.success, again.margin)
