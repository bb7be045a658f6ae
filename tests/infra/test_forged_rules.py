"""verify re-checks the rules, not only the arithmetic: forged logs under rebuilt chains.

Each forgery below is an event no honest run of the rules could append, written the way a
careful forger would (every hash after it recomputed, tests/infra/forging.py). verify must
name it, at its own position, with the rule it breaks; import must refuse it whole.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from diceledger.domain.dice.request import RerollScope, RollKind, Target
from diceledger.domain.errors import CorruptLogError
from diceledger.domain.records import RecordedEvent
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.domain.verification.verify import verify_records
from diceledger.infra.app.verification import verify_file
from diceledger.infra.codec.events import from_record
from diceledger.infra.store.exporting import import_export, write_export
from tests.infra.forging import rechain
from tests.infra.support import memory_services

Forgery = Callable[[list[RecordedEvent]], tuple[list[RecordedEvent], int]]


@pytest.fixture(scope="module")
def played() -> list[RecordedEvent]:
    """A short table with typed-in dice (so every face is known): rolls, a reroll, a
    blind roll, a dispute ruled void and its replacement, and the end."""
    services = memory_services()
    sessions = services.sessions
    sid = sessions.start("Forgery table", "gm").session_id
    sessions.execute(sid, "ann", cmd.JoinSession("ann", "ann's words"))
    sessions.execute(sid, "bob", cmd.JoinSession("bob"))
    check = cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12), faces=(15,))
    sessions.execute(sid, "ann", check)  # roll 1
    damage = cmd.RequestRoll(
        RollKind.DAMAGE, "2d6", rerolls=1, reroll_scope=RerollScope.DAMAGE, faces=(1, 5)
    )
    sessions.execute(sid, "bob", damage)  # roll 2, waits for its reroll
    sessions.execute(sid, "bob", cmd.Reroll(2, (0,), faces=(4,)))  # spends the allowance
    blind = cmd.RequestRoll(
        RollKind.EFFECT, "1d20", mode=RollMode.BLIND, on_behalf_of="orc", faces=(9,)
    )
    sessions.execute(sid, "gm", blind)  # roll 3
    sessions.execute(sid, "bob", cmd.OpenDispute(1, "the die fell off the table"))
    sessions.execute(sid, "gm", cmd.ResolveDispute(1, cmd.Ruling.VOIDED, "fell off"))
    again = cmd.RequestRoll(RollKind.CHECK, "1d20+2", target=Target(12), faces=(13,), replaces=1)
    sessions.execute(sid, "ann", again)  # roll 4, in place of roll 1
    sessions.end(sid, "gm")
    records = list(services.store.read_stream(sid))
    assert verify_records(records, from_record).ok
    return records


def find(records: list[RecordedEvent], event_type: str, **data: Any) -> int:
    """Return the index of the first record of ``event_type`` whose data has ``data``."""
    return next(
        i
        for i, r in enumerate(records)
        if r.event_type == event_type and all(r.data.get(k) == v for k, v in data.items())
    )


def changed(records: list[RecordedEvent], index: int, **data: Any) -> list[RecordedEvent]:
    """Change one event's data and rebuild the chain from it."""
    record = records[index]
    forged = replace(record, data={**record.data, **data})
    return rechain([*records[:index], forged, *records[index + 1 :]], index)


def inserted(
    records: list[RecordedEvent], index: int, event_type: str, **data: Any
) -> list[RecordedEvent]:
    """Slip a new event in at ``index`` and rebuild the chain from it."""
    template = records[index]
    forged = replace(
        template, event_id=str(uuid.uuid4()), event_type=event_type, schema_version=1, data=data
    )
    return rechain([*records[:index], forged, *records[index:]], index)


def reroll_past_the_allowance(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    # Bob's damage roll spent its one reroll and resolved; another reroll follows.
    at = find(records, "RollResolved", roll_id=2) + 1
    spent = records[find(records, "DieRerolled", roll_id=2)].data["die"]
    die = {**spent, "index": 3, "face": 6, "parent": 2}
    return inserted(records, at, "DieRerolled", roll_id=2, die=die, replaced=2), at


def two_rerolls_on_an_allowance_of_one(
    records: list[RecordedEvent],
) -> tuple[list[RecordedEvent], int]:
    # Bob's one reroll command grows a second rerolled die under the same nonce.
    first = find(records, "DieRerolled", roll_id=2)
    spent = records[first].data["die"]
    die = {**spent, "index": 3, "slot": 1, "face": 6, "parent": 1}
    return inserted(records, first + 1, "DieRerolled", roll_id=2, die=die, replaced=1), first


def player_makes_themself_gm(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    at = find(records, "PlayerJoined", name="bob") + 1
    joined = {"name": "ann", "role": "gm", "client_seed": "ann's words", "added_by": "ann"}
    return inserted(records, at, "PlayerJoined", **joined), at


def blind_roll_revealed_by_a_player(
    records: list[RecordedEvent],
) -> tuple[list[RecordedEvent], int]:
    # Bob shows everyone the GM's blind roll for the orc (roll 3) before the dispute.
    at = find(records, "RollDisputed")
    return inserted(records, at, "RollRevealed", roll_id=3, by="bob"), at


def self_roll_revealed_by_a_gm(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    # Ann's check made for her eyes only, then shown to all by the GM, who cannot see it.
    mine = changed(records, find(records, "RollRequested", roll_id=1), mode=RollMode.SELF.value)
    at = find(mine, "RollDisputed")
    return inserted(mine, at, "RollRevealed", roll_id=1, by="gm"), at


def dispute_ruled_by_a_player(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    at = find(records, "DisputeResolved")
    return changed(records, at, by="ann"), at


def session_ended_by_a_player(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    revealed, ended = find(records, "SeedRevealed"), find(records, "SessionEnded")
    forged = changed(records, revealed, by="bob")
    return changed(forged, ended, by="bob"), revealed


def dice_out_of_order(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    # Roll 1's dice moved after its own resolution.
    dice = find(records, "DiceRolled", roll_id=1)
    moved = [*records[:dice], records[dice + 1], records[dice], *records[dice + 2 :]]
    return rechain(moved, dice), dice


def resolved_while_rerolls_remain(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    # Bob's roll waits for his reroll; a forger resolves it at once instead.
    at = find(records, "DiceRolled", roll_id=2) + 1
    return inserted(records, at, "RollResolved", roll_id=2, total=6, detail="2d6 (1, 5) = 6"), at


def allowance_granted_twice(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    # A roll joins ann's action and grants itself a fresh allowance.
    at = find(records, "RollRequested", roll_id=4)
    return changed(records, at, rerolls_granted=3, action_id="roll-1"), at


def replaced_twice(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    # A second roll in place of the voided roll 1, just before the end.
    at = find(records, "SeedRevealed")
    nonce = records[find(records, "RollRequested", roll_id=4)].data["nonce"] + 1
    copies = []
    for event_type in ("RollRequested", "DiceRolled", "CheckResolved"):
        record = records[find(records, event_type, roll_id=4)]
        data = {**record.data, "roll_id": 5}
        if event_type == "RollRequested":
            data["nonce"] = nonce
        if event_type == "DiceRolled":
            data["dice"] = [{**die, "nonce": nonce} for die in data["dice"]]
        copies.append(replace(record, event_id=str(uuid.uuid4()), data=data))
    return rechain([*records[:at], *copies, *records[at:]], at), at


def nonce_skipped(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    at = find(records, "RollRequested", roll_id=3)
    return changed(records, at, nonce=records[at].data["nonce"] + 1), at


def epoch_not_committed(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    at = find(records, "RollRequested", roll_id=3)
    return changed(records, at, epoch=2), at


def client_seed_of_another(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    at = find(records, "RollRequested", roll_id=2)
    return changed(records, at, client_seed="ann's words"), at


def a_boolean_for_a_number(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    # JSON true where a roll id belongs: Python would take it for 1.
    at = find(records, "RollDisputed")
    return changed(records, at, roll_id=True), at


def a_title_that_clears_the_screen(
    records: list[RecordedEvent],
) -> tuple[list[RecordedEvent], int]:
    return changed(records, 0, title="Tomb\x1b[2J\x1b[H"), 0


def a_name_with_a_trailing_space(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    at = find(records, "PlayerJoined", name="bob")
    return changed(records, at, name="bob "), at


def character_for_a_stranger(records: list[RecordedEvent]) -> tuple[list[RecordedEvent], int]:
    # Only the sheets a session starts with may belong to someone yet to join: past the
    # start (and bob's join), a GM's character for a stranger is no carried one.
    at = find(records, "PlayerJoined", name="bob") + 1
    created = {"character": "Thalia", "owner": "cleo", "by": "gm"}
    return inserted(records, at, "CharacterCreated", **created), at


FORGERIES: dict[str, tuple[Forgery, str]] = {
    "a character for someone not in the session": (
        character_for_a_stranger,
        "cleo is not in session",
    ),
    "a reroll with no allowance left": (reroll_past_the_allowance, "already resolved"),
    "two rerolls on an allowance of one": (two_rerolls_on_an_allowance_of_one, "2 rerolls asked"),
    "a player who makes themself GM": (player_makes_themself_gm, "only a GM may add"),
    "a blind roll revealed by a player": (
        blind_roll_revealed_by_a_player,
        "only a GM may reveal a gm or blind roll",
    ),
    "a self roll revealed by a GM": (self_roll_revealed_by_a_gm, "no roll 1"),
    "a dispute ruled by a player": (dispute_ruled_by_a_player, "only a GM may resolve a dispute"),
    "a session ended by a player": (session_ended_by_a_player, "only a GM may end the session"),
    "dice out of order": (dice_out_of_order, "roll 1"),
    "a roll resolved while its reroll remains": (resolved_while_rerolls_remain, "RollResolved"),
    "an allowance granted twice to one action": (allowance_granted_twice, "already has its"),
    "a voided roll replaced twice": (replaced_twice, "already rolled again, as roll 4"),
    "a nonce skipped": (nonce_skipped, "nonce"),
    "an epoch never committed": (epoch_not_committed, "epoch 2"),
    "another member's client seed": (client_seed_of_another, "client seed"),
    "a boolean for a number": (
        a_boolean_for_a_number,
        "Expected `int`, got `bool` - at `$.roll_id`",
    ),
    "a title that clears the screen": (a_title_that_clears_the_screen, "U+001B"),
    "a name with a trailing space": (a_name_with_a_trailing_space, "name is 'bob '"),
}


@pytest.mark.parametrize("name", FORGERIES)
def test_verify_names_the_first_rule_a_forged_log_breaks(
    name: str, played: list[RecordedEvent]
) -> None:
    forge, reason = FORGERIES[name]
    forged, at = forge(list(played))
    report = verify_records(forged, from_record)
    first = report.first_failure
    assert first is not None, f"{name} verified"
    assert first.stream_version == at + 1, first
    assert reason in first.reason, first


@pytest.mark.parametrize("name", FORGERIES)
def test_import_refuses_a_forged_log_whole(
    name: str, played: list[RecordedEvent], tmp_path: Path
) -> None:
    forged, at = FORGERIES[name][0](list(played))
    path = tmp_path / "forged.jsonl"
    write_export(forged, path)
    store = memory_services().store
    with pytest.raises(CorruptLogError, match=f"does not verify at version {at + 1}:"):
        import_export(store, path)
    assert store.head_position() == 0


def test_the_honest_log_imports_and_verifies(played: list[RecordedEvent], tmp_path: Path) -> None:
    path = tmp_path / "honest.jsonl"
    write_export(played, path)
    assert verify_file(path).ok
    assert import_export(memory_services().store, path) == (len(played), len(played))


def test_an_empty_export_does_not_verify(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    report = verify_file(path)
    assert not report.ok
    assert report.first_failure is not None and "no events" in report.first_failure.reason
    with pytest.raises(CorruptLogError, match="holds no events"):
        import_export(memory_services().store, path)


def test_an_export_that_repeats_an_event_id_does_not_verify(
    played: list[RecordedEvent], tmp_path: Path
) -> None:
    # The ruling's id reused by the replacement's request, every hash rebuilt.
    ruling = find(played, "DisputeResolved")
    at = find(played, "RollRequested", roll_id=4)
    reused = replace(played[at], event_id=played[ruling].event_id)
    forged = rechain([*played[:at], reused, *played[at + 1 :]], at)
    report = verify_records(forged, from_record)
    assert report.first_failure is not None
    assert report.first_failure.stream_version == at + 1
    assert "appears twice" in report.first_failure.reason
    path = tmp_path / "twice.jsonl"
    write_export(forged, path)
    store = memory_services().store
    with pytest.raises(CorruptLogError, match="appears twice"):
        import_export(store, path)
    assert store.head_position() == 0
