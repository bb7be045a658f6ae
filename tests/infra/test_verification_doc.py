"""The worked examples of docs/verification.md, recomputed from the page's own numbers."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from diceledger.domain.dice.sources import SeededSource, draw_message
from diceledger.domain.hashchain import event_hash
from tests.domain.session.documented_dice import Stream

DOC = Path(__file__).resolve().parents[2] / "docs" / "verification.md"


def worked_example() -> list[tuple[str, str]]:
    text = DOC.read_text()
    blocks = re.findall(r"```text\n(.*?)```", text, flags=re.S)
    pairs = []
    for block in blocks:
        for line in block.splitlines():
            key, _, value = line.partition(":")
            pairs.append((key.strip(), value.strip()))
    return pairs


def value(key: str) -> str:
    return next(v for k, v in worked_example() if k == key)


def test_the_documented_message_block_words_and_faces_are_what_the_code_derives() -> None:
    seed = bytes.fromhex(value("seed"))
    assert hashlib.sha256(seed).hexdigest() == value("commitment")
    message = draw_message(value("session"), int(value("nonce")), value("client seed"), "")
    assert message.hex() == value("message")
    block = hmac.new(seed, message + bytes(4), hashlib.sha256).digest()
    assert block.hex() == value("block 0")
    words = [int.from_bytes(block[i : i + 4], "big") for i in range(0, 12, 4)]
    assert [str(w) for w in words] == [value(f"word {n}") for n in range(3)]
    source = SeededSource(seed, value("session"), int(value("nonce")), value("client seed"))
    faces = [source.draw(20).face, source.draw(20).face, source.draw(6).face]
    documented = [v for k, v in worked_example() if k.endswith("face")]
    assert [str(f) for f in faces] == documented


def test_the_documented_event_hash_is_sha256_of_zero_and_its_canonical_json() -> None:
    event = value("event")
    record = json.loads(event)
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical == event
    assert hashlib.sha256(b"\x00" + event.encode()).hexdigest() == value("hash")
    moment = datetime.strptime(record.pop("recorded_at"), "%Y-%m-%dT%H:%M:%S.%fZ")
    assert event_hash(recorded_at=moment.replace(tzinfo=UTC), **record) == value("hash")


# The second worked example: a ```dice block of "key: value" lines.
DIE_KEY = re.compile(r"nonce (\d+) (?:round (\d+) (\w+) )?die (\d+)$")
DIE_VALUE = re.compile(r"d(\d+) block (\d+) word (\d+) = (\d+) -> (\d+)\s*(.*)$")
CORPUS = DOC.parents[1] / "conformance" / "honest-ended.jsonl"


@dataclass(frozen=True)
class DocDie:
    nonce: int
    round: int | None
    side: str | None
    index: int
    sides: int
    block: int
    word: int
    value: int
    face: int
    note: str


def second_example() -> dict[str, str]:
    (block,) = re.findall(r"```dice\n(.*?)```", DOC.read_text(), flags=re.S)
    return {
        k.strip(): v.strip() for k, _, v in (line.partition(":") for line in block.splitlines())
    }


def documented_dice() -> list[DocDie]:
    dice = []
    for key, text in second_example().items():
        where, what = DIE_KEY.match(key), DIE_VALUE.match(text)
        if where is None:
            continue
        assert what is not None, text
        nonce, round_, side, index = where.groups()
        sides, block, word, value, face, note = what.groups()
        numbers = (int(index), int(sides), int(block), int(word), int(value), int(face))
        round_number = int(round_) if round_ is not None else None
        dice.append(DocDie(int(nonce), round_number, side, *numbers, note))
    return dice


def test_the_second_example_derives_every_die_and_block_from_the_page() -> None:
    example = second_example()
    seed, session, client_seed = (
        bytes.fromhex(value("seed")),
        value("session"),
        value("client seed"),
    )
    dice = documented_dice()
    for nonce in sorted({d.nonce for d in dice}):
        salt = example[f"nonce {nonce} salt"]
        message = draw_message(session, nonce, client_seed, salt)
        block = hmac.new(seed, message + bytes(4), hashlib.sha256).digest()
        assert block.hex() == example[f"nonce {nonce} block 0"]
        stream = Stream(seed, session, nonce, client_seed, salt)
        for die in (d for d in dice if d.nonce == nonce):  # in draw order, as the page lists
            drawn = stream.draw(die.sides)
            assert (drawn.block, drawn.word, drawn.face) == (die.block, die.word, die.face)
            assert int.from_bytes(block[4 * die.word : 4 * die.word + 4], "big") == die.value
            assert die.face == die.value % die.sides + 1


def test_the_second_example_totals_follow_from_its_dice_by_the_rules() -> None:
    example, dice = second_example(), documented_dice()
    reroll = [d for d in dice if d.nonce in (2, 3)]
    replaced = {int(d.note.rsplit(" ", 1)[1]) for d in reroll if d.note.startswith("reroll")}
    exploded_from = {
        d.index: int(d.note.rsplit(" ", 1)[1]) for d in reroll if "explosion" in d.note
    }
    live = [
        d for d in reroll if d.index not in replaced and exploded_from.get(d.index) not in replaced
    ]
    assert int(example["roll 2 total"]) == sum(d.face for d in live) == 18

    rounds: dict[int, dict[str, int]] = {}
    for die in (d for d in dice if d.nonce == 4):
        assert die.round is not None and die.side is not None
        sides = rounds.setdefault(die.round, {})
        sides[die.side] = sides.get(die.side, 0) + die.face
    assert rounds[1]["ann"] == rounds[1]["bob"] == int(example["roll 3 tied round 1"])
    ann, bob = rounds[max(rounds)]["ann"], rounds[max(rounds)]["bob"]
    assert (int(example["roll 3 total"]), int(example["roll 3 opponent total"])) == (ann, bob)
    assert int(example["roll 3 margin"]) == ann - bob
    assert example["roll 3 winner"] == ("ann" if ann > bob else "bob")

    faces = [d.face for d in dice if d.nonce == 5]
    assert int(example["roll 4 total"]) == (sum(faces) + 3 + 1) // 2  # (2d6+3)/2 eased 1


def test_the_second_example_is_what_the_corpus_session_recorded() -> None:
    lines = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    names = {0: "ann", 1: "bob"}
    recorded = [
        (die["nonce"], line["data"].get("round"), line["data"].get("side"), die)
        for line in lines
        if line["event_type"] in ("DiceRolled", "DieExploded", "DieRerolled")
        and line["data"]["roll_id"] in (2, 3, 4)
        for die in line["data"].get("dice", [line["data"].get("die")])
    ]
    documented = documented_dice()
    assert len(recorded) == len(documented)
    for (nonce, round_, side, die), doc in zip(recorded, documented, strict=True):
        assert (nonce, die["index"], die["sides"], die["block"], die["word"], die["face"]) == (
            doc.nonce,
            doc.index,
            doc.sides,
            doc.block,
            doc.word,
            doc.face,
        )
        if doc.round is not None:
            assert (round_, names[side]) == (doc.round, doc.side)
        if doc.note:
            kind, _, parent = doc.note.partition(" of die ")
            assert die["reason"] == kind.split()[0] and die["parent"] == int(parent)
    totals = {
        line["data"]["roll_id"]: line["data"]
        for line in lines
        if line["event_type"] in ("RollResolved", "CheckResolved")
    }
    example = second_example()
    assert totals[2]["total"] == int(example["roll 2 total"])
    assert totals[3]["total"] == int(example["roll 3 total"])
    assert totals[3]["opponent_total"] == int(example["roll 3 opponent total"])
    assert (totals[3]["margin"], totals[3]["winner"]) == (-12, example["roll 3 winner"])
    assert totals[4]["total"] == int(example["roll 4 total"])
