"""A receipt proves it holds every event of its roll, and every seed its dice need."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.errors import ProofError
from diceledger.domain.receipt import Receipt
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.modes import RollMode
from diceledger.infra.app.application import Application
from diceledger.infra.app.verification import Reader, check_receipt
from diceledger.infra.bootstrap import bootstrap
from diceledger.infra.ledger.signing import Keyring


@pytest.fixture
def app(sqlite_url: str, tmp_path: Path) -> Iterator[Application]:
    built = bootstrap(sqlite_url, signing_key=tmp_path / "signing.key")
    yield built
    built.close()


@pytest.fixture
def reader(tmp_path: Path) -> Reader:
    return Reader(Keyring(tmp_path / "signing.key").trusted())


def waited_on(app: Application) -> str:
    """Ann's check waits for a reroll; bob rolls meanwhile; ann rerolls; bob rolls again."""
    sid = app.start_session("gm", "Tomb of Ash").session_id
    app.join("ann", sid, cmd.JoinSession("ann", "ann's words"))
    app.join("bob", sid, cmd.JoinSession("bob"))
    # Typed-in faces: no die explodes, so the roll's events are exactly these.
    check = cmd.RequestRoll(RollKind.CHECK, "1d20", target=Target(12), rerolls=1, faces=(7,))
    app.request_roll("ann", sid, check)
    app.request_roll("bob", sid, cmd.RequestRoll(RollKind.EFFECT, "1d6", faces=(2,)))
    app.reroll("ann", sid, cmd.Reroll(1, (0,), (15,)))
    app.request_roll("bob", sid, cmd.RequestRoll(RollKind.EFFECT, "1d4", faces=(1,)))
    return sid


def without(receipt: Receipt, version: int) -> Receipt:
    """Return the receipt with the event at ``version`` left out, as its holder could."""
    document = json.loads(receipt.to_json())
    document["events"] = [e for e in document["events"] if e["index"] != version - 1]
    return Receipt.parse(json.dumps(document))


def version_of(receipt: Receipt, which: str) -> int:
    """Return the version of one event of roll 1's receipt, named as the rules write it."""
    if which == "the event after":
        return 1 + max(version_of(receipt, kind) for kind in ("CheckResolved", "DieRerolled"))
    for entry in receipt.entries:
        record = entry.record
        if record and record["event_type"] == which and record["data"].get("roll_id", 1) == 1:
            return entry.version
    raise LookupError(which)


# The roll's own events, the one after its last, and its epoch's commitment.
ROLL_EVENTS = (
    "RollRequested",
    "DiceRolled",
    "DieRerolled",
    "CheckResolved",
    "the event after",
    "SeedCommitted",
)


def test_an_honest_receipt_holds_the_rolls_whole_range(app: Application, reader: Reader) -> None:
    sid = waited_on(app)
    receipt = app.proofs.receipt("ann", sid, 1)
    check_receipt(receipt, reader)
    kinds = [e.record["event_type"] for e in receipt.entries if e.record]
    # bob's roll in between is held too: the range from ann's request on has no gap.
    assert kinds.count("RollRequested") == 3


@pytest.mark.parametrize("which", ROLL_EVENTS)
def test_a_receipt_with_any_one_of_its_rolls_events_removed_fails(
    app: Application, reader: Reader, which: str
) -> None:
    sid = waited_on(app)
    receipt = app.proofs.receipt("ann", sid, 1)
    with pytest.raises(ProofError, match="roll 1"):
        check_receipt(without(receipt, version_of(receipt, which)), reader)


def test_a_rolls_last_event_dropped_with_the_one_after_it_fails(
    app: Application, reader: Reader
) -> None:
    sid = waited_on(app)
    receipt = app.proofs.receipt("ann", sid, 1)
    last = version_of(receipt, "CheckResolved")
    cut = without(without(receipt, last + 1), last)  # the resolution and the event after
    with pytest.raises(ProofError, match="roll 1: the receipt lacks"):
        check_receipt(cut, reader)


def test_a_reroll_drawn_after_a_mid_session_reveal_derives_from_the_receipt(
    app: Application, reader: Reader
) -> None:
    sid = app.start_session("gm", "Tomb of Ash").session_id
    app.join("ann", sid, cmd.JoinSession("ann", "ann's words"))
    app.request_roll("ann", sid, cmd.RequestRoll(RollKind.EFFECT, "2d6", rerolls=1))
    app.reveal_seed("gm", sid)  # epoch 1 revealed, epoch 2 committed
    app.reroll("ann", sid, cmd.Reroll(1, (0,)))  # drawn from epoch 2
    app.end_session("gm", sid)  # epoch 2 revealed
    receipt = app.proofs.receipt("ann", sid, 1)
    checked = check_receipt(receipt, reader)
    records = [e.record for e in receipt.entries if e.record is not None]
    kinds = [record["event_type"] for record in records]
    drawn = ("DiceRolled", "DieExploded", "DieRerolled")
    dice = sum(len(r["data"].get("dice", [1])) for r in records if r["event_type"] in drawn)
    assert "DieRerolled" in kinds and dice >= 3
    assert (checked.dice.verified, checked.dice.unverifiable) == (dice, 0)


def test_a_players_receipt_seals_a_hidden_roll_inside_its_range(
    app: Application, reader: Reader
) -> None:
    sid = app.start_session("gm", "Tomb of Ash").session_id
    app.join("ann", sid, cmd.JoinSession("ann"))
    app.request_roll("ann", sid, cmd.RequestRoll(RollKind.EFFECT, "1d6", rerolls=1))
    blind = cmd.RequestRoll(
        RollKind.CHECK, "1d20", target=Target(10), mode=RollMode.BLIND, label="ambush"
    )
    app.request_roll("gm", sid, blind)
    app.reroll("ann", sid, cmd.Reroll(1, (0,)))
    receipt = app.proofs.receipt("ann", sid, 1)
    assert "ambush" not in receipt.to_json()
    checked = check_receipt(receipt, reader)
    full = app.proofs.receipt("gm", sid, 1).entries
    blind_roll = [e.version for e in full if e.record and e.record["data"].get("roll_id") == 2]
    assert checked.verified.sealed == tuple(blind_roll)
