"""The suite's tamper cases: what a forger does to an honest export, and what must catch it.

Each case takes the records of a played session's export and returns them changed; its
text is a part of the reason ``diceledger verify --file`` names for the first bad event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from diceledger.domain.records import RecordedEvent
from diceledger.infra.store.exporting import read_export, write_export
from tests.infra.forging import rechain
from tests.web.sessions import PlayedSession

Records = list[RecordedEvent]


def index_of(records: Records, event_type: str, test: Callable[[RecordedEvent], bool]) -> int:
    return next(i for i, r in enumerate(records) if r.event_type == event_type and test(r))


def with_data(record: RecordedEvent, **changes: object) -> RecordedEvent:
    return replace(record, data={**record.data, **changes})


def change_a_face(records: Records) -> Records:
    """Turn a seeded die to another face and recompute every hash after it, as a forger would."""
    i = index_of(records, "DiceRolled", lambda r: r.data["dice"][0]["source"] == "seeded")
    dice = [dict(die) for die in records[i].data["dice"]]
    dice[0]["face"] = dice[0]["face"] % dice[0]["sides"] + 1
    return rechain([*records[:i], with_data(records[i], dice=dice), *records[i + 1 :]], i)


def break_a_link(records: Records) -> Records:
    i = index_of(records, "CheckResolved", lambda r: True)
    return [*records[:i], replace(records[i], prev_hash="ab" * 32), *records[i + 1 :]]


def remove_an_event(records: Records) -> Records:
    # The explosion of a typed-in six: the same event in every run, whatever the seeded dice.
    i = index_of(records, "DieExploded", lambda r: r.data["die"]["source"] == "manual")
    return records[:i] + records[i + 1 :]


def edit_without_rehashing(records: Records) -> Records:
    i = index_of(records, "PlayerJoined", lambda r: True)
    return [*records[:i], with_data(records[i], name="mallory"), *records[i + 1 :]]


def commit_to_another_seed(records: Records) -> Records:
    i = index_of(records, "SeedCommitted", lambda r: r.data["epoch"] == 1)
    wrong = with_data(records[i], commitment="0f" * 32)
    return rechain([*records[:i], wrong, *records[i + 1 :]], i)


TAMPERING: dict[str, tuple[Callable[[Records], Records], str]] = {
    "a die face changed, hashes recomputed": (change_a_face, "seed gives"),
    "a broken chain link": (break_a_link, "prev_hash does not match"),
    "an event removed": (remove_an_event, "follows version"),
    "an event edited, hashes left": (edit_without_rehashing, "hash does not match"),
    "a wrong seed commitment": (commit_to_another_seed, "does not match its commitment"),
}


def tampered_copy(played: PlayedSession, name: str, folder: Path) -> Path:
    tamper, _ = TAMPERING[name]
    path = folder / "tampered.jsonl"
    write_export(tamper(list(read_export(played.ended))), path)
    return path
