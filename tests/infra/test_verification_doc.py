"""The worked example of docs/verification.md, recomputed from the page's own numbers."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from datetime import UTC, datetime
from pathlib import Path

from diceledger.domain.dice.sources import SeededSource, draw_message
from diceledger.domain.hashchain import event_hash

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
