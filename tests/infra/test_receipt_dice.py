"""A receipt's dice are derived again, offline, from the seed it holds once revealed."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from diceledger.domain.dice.request import RollKind
from diceledger.domain.errors import ProofError
from diceledger.domain.receipt import Receipt
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Event
from diceledger.domain.verification.receipt_dice import check_receipt_dice
from diceledger.infra.app.application import Application
from diceledger.infra.app.verification import Reader, check_receipt
from diceledger.infra.bootstrap import bootstrap
from diceledger.infra.codec.events import decode
from diceledger.infra.ledger.signing import Keyring


@pytest.fixture
def app(sqlite_url: str, tmp_path: Path) -> Iterator[Application]:
    built = bootstrap(sqlite_url, signing_key=tmp_path / "signing.key")
    yield built
    built.close()


def records_of(receipt: Receipt) -> list[dict[str, Any]]:
    return [copy.deepcopy(dict(e.record)) for e in receipt.entries if e.record is not None]


def by_data(record: Mapping[str, Any]) -> Event:
    return decode(record["event_type"], record["schema_version"], record["data"])


def played(app: Application) -> str:
    sid = app.start_session("gm", "Tomb of Ash").session_id
    app.join("ann", sid, cmd.JoinSession("ann", "ann's words"))
    check = cmd.RequestRoll(RollKind.DAMAGE, "2d8+1", salt="fresh", rerolls=1)
    app.request_roll("ann", sid, check)
    app.reroll("ann", sid, cmd.Reroll(1, (0,)))
    return sid


def test_an_unrevealed_seeds_dice_wait_and_a_revealed_ones_are_derived_again(
    app: Application, tmp_path: Path
) -> None:
    sid = played(app)
    known = Keyring(tmp_path / "signing.key").trusted()
    early = check_receipt(app.proofs.receipt("ann", sid, 1), Reader(known))
    assert early.dice.verified == 0 and early.dice.unverifiable >= 3  # two d8s and a reroll
    assert early.pinned
    app.end_session("gm", sid)
    later = check_receipt(app.proofs.receipt("ann", sid, 1), Reader(known))
    assert later.dice.verified == early.dice.unverifiable and later.dice.unverifiable == 0


def test_a_die_the_seed_does_not_give_is_named(app: Application) -> None:
    sid = played(app)
    app.end_session("gm", sid)
    records = records_of(app.proofs.receipt("ann", sid, 1))
    rolled = next(r for r in records if r["event_type"] == "DiceRolled")
    die = rolled["data"]["dice"][1]
    die["face"] = die["face"] % 8 + 1
    with pytest.raises(ProofError, match="roll 1 die 1: the epoch 1 seed gives"):
        check_receipt_dice(records, by_data)


def test_a_seed_that_is_not_the_committed_one_is_refused(app: Application) -> None:
    sid = played(app)
    app.end_session("gm", sid)
    records = records_of(app.proofs.receipt("ann", sid, 1))
    revealed = next(r for r in records if r["event_type"] == "SeedRevealed")
    revealed["data"]["seed"] = "00" * 32
    with pytest.raises(ProofError, match="seed revealed for epoch 1 is not the committed one"):
        check_receipt_dice(records, by_data)


def test_a_roll_drawn_with_another_client_seed_is_refused(app: Application) -> None:
    sid = played(app)
    records = records_of(app.proofs.receipt("ann", sid, 1))
    joined = next(r for r in records if r["event_type"] == "PlayerJoined")
    joined["data"]["client_seed"] = "someone else's words"
    with pytest.raises(ProofError, match="another client seed than its roller's"):
        check_receipt_dice(records, by_data)
