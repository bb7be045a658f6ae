"""Check the dice a receipt holds against the seed it holds, once that seed is revealed.

A roll's receipt carries, beside the roll's events, its epoch's commitment, the seed when
revealed, and the roller's joins. That is enough to check, offline, what ``verify`` checks
for these dice: the seed matches its commitment, which came before the roll; the roll used
the client seed its roller joined with; every seeded die is the one the seed gives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from diceledger.domain.dice.sources import commitment
from diceledger.domain.errors import ProofError
from diceledger.domain.session import events as ev
from diceledger.domain.verification.derivation import matches, rederive

# Turns a receipt's record (event_type, schema_version, data) into its event.
RecordDecoder = Callable[[Mapping[str, Any]], ev.Event]


@dataclass(frozen=True, slots=True)
class ReceiptDice:
    """How many of the receipt's dice were derived again, typed in, or wait for a seed."""

    verified: int = 0
    manual: int = 0
    unverifiable: int = 0


@dataclass(frozen=True, slots=True)
class _Seeded:
    roll_id: int
    die: ev.DieRecord


def check_receipt_dice(records: Sequence[Mapping[str, Any]], decode: RecordDecoder) -> ReceiptDice:
    """Check the receipt's dice against its seeds; raise ProofError naming the first wrong one."""
    events = [(int(record["stream_version"]), decode(record)) for record in records]
    session_id = str(records[0]["stream_id"]) if records else ""
    committed = {e.epoch: (v, e.commitment) for v, e in events if isinstance(e, ev.SeedCommitted)}
    seeds = _revealed(events, committed)
    requests = {e.roll_id: (v, e) for v, e in events if isinstance(e, ev.RollRequested)}
    for version, request in requests.values():
        _check_request(events, committed, version, request)
    by_nonce: dict[int, list[_Seeded]] = {}
    manual = 0
    for _, event in events:
        for die in _dice_of(event):
            if die.source == "manual":
                manual += 1
            else:
                by_nonce.setdefault(die.nonce, []).append(_Seeded(_roll_of(event), die))
    verified = unverifiable = 0
    for nonce, dice in by_nonce.items():
        epoch = dice[0].die.epoch
        seed = seeds.get(epoch) if epoch is not None else None
        if seed is None:
            unverifiable += len(dice)
            continue
        request = requests[dice[0].roll_id][1]
        draws = rederive(
            seed, session_id, nonce, request.client_seed, request.salt, [d.die for d in dice]
        )
        for seeded, draw in zip(dice, draws, strict=True):
            if not matches(draw, seeded.die):
                raise ProofError(
                    f"roll {seeded.roll_id} die {seeded.die.index}: the epoch {epoch} seed "
                    f"gives {draw.face} (block {draw.block}, word {draw.word}), the receipt "
                    f"says {seeded.die.face}"
                )
        verified += len(dice)
    return ReceiptDice(verified, manual, unverifiable)


def _revealed(
    events: Sequence[tuple[int, ev.Event]], committed: Mapping[int, tuple[int, str]]
) -> dict[int, bytes]:
    seeds = {}
    for _, event in events:
        if isinstance(event, ev.SeedRevealed):
            seed = bytes.fromhex(event.seed)
            if event.epoch not in committed or commitment(seed) != committed[event.epoch][1]:
                raise ProofError(
                    f"the seed revealed for epoch {event.epoch} is not the committed one"
                )
            seeds[event.epoch] = seed
    return seeds


def _check_request(
    events: Sequence[tuple[int, ev.Event]],
    committed: Mapping[int, tuple[int, str]],
    version: int,
    request: ev.RollRequested,
) -> None:
    where = f"roll {request.roll_id}"
    if request.epoch not in committed or committed[request.epoch][0] > version:
        raise ProofError(f"{where} uses epoch {request.epoch}, not committed before it")
    joins = [
        e
        for v, e in events
        if isinstance(e, ev.PlayerJoined) and e.name == request.roller and v < version
    ]
    if joins and joins[-1].client_seed != request.client_seed:
        raise ProofError(f"{where} was drawn with another client seed than its roller's")


def _dice_of(event: ev.Event) -> tuple[ev.DieRecord, ...]:
    if isinstance(event, ev.DiceRolled):
        return event.dice
    if isinstance(event, ev.DieExploded | ev.DieRerolled):
        return (event.die,)
    return ()


def _roll_of(event: ev.Event) -> int:
    assert isinstance(event, ev.DiceRolled | ev.DieExploded | ev.DieRerolled)
    return event.roll_id
