"""Each part of the browser's verifier gives the bytes and numbers the Python code gives.

Canonical JSON, the draw message and the dice of a seed, the reading of export lines and
the event catalogue are compared, in a real Chromium, with the Python functions they
re-implement, on the worked example of docs/verification.md and on generated inputs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diceledger.domain.dice.sources import SeededSource, draw_message, face_from_word
from diceledger.domain.errors import CorruptLogError, InvalidInputError
from diceledger.domain.hashchain import canonical_json, format_timestamp
from diceledger.domain.session.events import EVENT_TYPES
from diceledger.infra.store.exporting import read_export
from tests.web.browser import run_module

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

DOC = Path(__file__).resolve().parents[2] / "docs" / "verification.md"
SAFE = 2**53 - 1


@pytest.fixture(scope="module")
def page(shared_driver: WebDriver, static_site: str) -> Iterator[tuple[WebDriver, str]]:
    """Open the verify page once; yield the browser and the static files' base URL."""
    shared_driver.get(static_site + "verify.html")
    yield shared_driver, static_site


def in_page(page: tuple[WebDriver, str], module: str, body: str, *args: object) -> Any:
    driver, base = page
    result = run_module(driver, base + module, body, *args)
    assert not (isinstance(result, dict) and "thrown" in result), result
    return result


def documented(key: str) -> str:
    blocks = re.findall(r"```text\n(.*?)```", DOC.read_text(), flags=re.S)
    for line in "\n".join(blocks).splitlines():
        name, _, value = line.partition(":")
        if name.strip() == key:
            return value.strip()
    raise KeyError(key)


DRAW = """
const [seedHex, session, nonce, clientSeed, salt, sides] = args;
const seed = new Uint8Array(seedHex.match(/../g).map((pair) => parseInt(pair, 16)));
const source = await m.SeededSource.create(seed, session, nonce, clientSeed, salt);
const draws = [];
for (const size of sides) {
  const draw = await source.draw(size);
  draws.push([draw.face, draw.block, draw.word]);
}
return draws;
"""


def test_the_worked_example_of_the_docs_comes_out_of_the_browser(
    page: tuple[WebDriver, str],
) -> None:
    seed, session = documented("seed"), documented("session")
    nonce, client_seed = int(documented("nonce")), documented("client seed")
    message = in_page(
        page,
        "derive.js",
        "return Array.from(m.drawMessage(...args), (b) => b);",
        session,
        nonce,
        client_seed,
        "",
    )
    assert bytes(message).hex() == documented("message")
    draws = in_page(page, "derive.js", DRAW, seed, session, nonce, client_seed, "", [20, 20, 6])
    faces = [documented("d20 face"), "9", documented("d6 face")]
    assert [str(face) for face, _, _ in draws] == faces
    seed_bytes = list(bytes.fromhex(seed))
    commit = "return m.commitment(new Uint8Array(args[0]));"
    commitment = in_page(page, "derive.js", commit, seed_bytes)
    assert commitment == documented("commitment")
    event = json.loads(documented("event"))
    digest = in_page(page, "chain.js", "return m.recordHash(args[0]);", event)
    assert digest == documented("hash")


names = st.text(st.characters(exclude_categories=["Cs"]), max_size=24)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.binary(min_size=1, max_size=48),
    session=names,
    nonce=st.integers(0, SAFE),
    client_seed=names,
    salt=names,
    sides=st.lists(st.sampled_from([4, 6, 7, 8, 10, 12, 20, 100, 2**31 + 1]), max_size=40),
)
def test_dice_of_a_seed_are_the_same_in_the_browser(
    page: tuple[WebDriver, str],
    seed: bytes,
    session: str,
    nonce: int,
    client_seed: str,
    salt: str,
    sides: list[int],
) -> None:
    source = SeededSource(seed, session, nonce, client_seed, salt)
    expected = [[d.face, d.block, d.word] for d in (source.draw(size) for size in sides)]
    draws = in_page(page, "derive.js", DRAW, seed.hex(), session, nonce, client_seed, salt, sides)
    assert draws == expected
    message = in_page(
        page,
        "derive.js",
        "return Array.from(m.drawMessage(...args), (b) => b);",
        session,
        nonce,
        client_seed,
        salt,
    )
    assert bytes(message) == draw_message(session, nonce, client_seed, salt)


# The values travel as JSON text: the driver's own transport refuses lone surrogates.
CANONICAL = """
return JSON.parse(args[0]).map((value) => {
  try { return m.canonicalJson(value); } catch (error) { return {refused: error.message}; }
});
"""

bmp_keys = st.text(st.characters(max_codepoint=0xFFFF, exclude_categories=["Cs"]), max_size=6)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-SAFE, SAFE)
    | st.text(st.characters(exclude_categories=["Cs"]), max_size=10)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(bmp_keys, inner, max_size=5),
    max_leaves=24,
)


@settings(max_examples=40, deadline=None)
@given(values=st.lists(json_values, min_size=1, max_size=12))
def test_canonical_json_is_the_same_text_in_the_browser(
    page: tuple[WebDriver, str], values: list[Any]
) -> None:
    expected = [canonical_json(value).decode() for value in values]
    assert in_page(page, "canonical.js", CANONICAL, json.dumps(values)) == expected


def python_refusal(value: Any) -> str:
    with pytest.raises(InvalidInputError) as refused:
        canonical_json(value)
    return str(refused.value)


def test_canonical_json_refuses_what_python_refuses_with_the_same_reason(
    page: tuple[WebDriver, str],
) -> None:
    refused = [
        {"a": [1, 1.5]},
        {"n": 2**53},
        {"n": -(2**53)},
        {"dice \U0001f3b2": 1},
        {"s": "half \ud800 a pair"},
        ["\udc00"],
    ]
    answers = in_page(page, "canonical.js", CANONICAL, json.dumps(refused))
    assert answers == [{"refused": python_refusal(value)} for value in refused]


TIMESTAMPS = [
    "2026-11-29T20:00:00.000000Z",
    "2026-1-5T1:2:3.5Z",
    "2026-01-05t01:02:03.123z",
    "2026-01- 5T00:00:00.1Z",
    "2024-02-29T23:59:59.999999Z",
    "2026-02-29T00:00:00.0Z",
    "2026-01-01T00:00:60.0Z",
    "2026-13-01T00:00:00.0Z",
    "2026-01-01T00:00:00Z",
    "2026-01-01T00:00:00.1234567Z",
    "0000-01-01T00:00:00.0Z",
    "2026-01-01 00:00:00.000000Z",
]


def python_timestamp(text: str) -> str | None:
    try:
        moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        return None
    return format_timestamp(moment.replace(tzinfo=UTC))


def test_recorded_times_are_read_as_python_reads_them(page: tuple[WebDriver, str]) -> None:
    read = in_page(page, "records.js", "return args[0].map(m.normalTimestamp);", TIMESTAMPS)
    assert read == [python_timestamp(text) for text in TIMESTAMPS]


GOOD_LINE = {
    "position": 1,
    "event_id": "3f1c2b9e-0000-4000-8000-000000000001",
    "stream_id": "s",
    "stream_version": 1,
    "event_type": "SessionEnded",
    "schema_version": 1,
    "data": {"by": "gm"},
    "meta": {},
    "recorded_at": "2026-11-29T20:00:00.000000Z",
    "prev_hash": "0" * 64,
    "hash": "0" * 64,
}
BROKEN_FILES = {
    "cut short": json.dumps(GOOD_LINE),
    "cut short by a lone carriage return": json.dumps(GOOD_LINE) + "\r",
    "not an object": "[1, 2]\n",
    "missing and unexpected fields": json.dumps(
        {**{k: v for k, v in GOOD_LINE.items() if k != "hash"}, "zzz": 2, "extra": 1}
    )
    + "\n",
    "a field of the wrong type": json.dumps({**GOOD_LINE, "stream_version": True}) + "\n",
    "a float position": json.dumps(GOOD_LINE).replace('"position": 1', '"position": 1.0') + "\n",
    "a bad time": json.dumps({**GOOD_LINE, "recorded_at": "yesterday"}) + "\n",
    "a time strptime reads but the schema refuses": json.dumps(
        {**GOOD_LINE, "recorded_at": "2026-1-1T00:00:00.0Z"}
    )
    + "\n",
    "an upper-case event id": json.dumps(
        {**GOOD_LINE, "event_id": "3F1C2B9E-0000-4000-8000-000000000001"}
    )
    + "\n",
    "a hash in upper case": json.dumps({**GOOD_LINE, "hash": "A" * 64}) + "\n",
    "a version 0": json.dumps({**GOOD_LINE, "stream_version": 0}) + "\n",
    "a duplicate key": json.dumps(GOOD_LINE).replace('"meta": {}', '"meta": {"a": 1, "a": 2}')
    + "\n",
    "a duplicate key after an escaped quote": json.dumps(
        {**GOOD_LINE, "data": {"by": 'say "hi"'}}
    ).replace('"meta": {}', '"meta": {"k\\"": 1, "k\\"": 2}')
    + "\n",
    "a second line cut short": json.dumps(GOOD_LINE) + "\n" + json.dumps(GOOD_LINE)[:40],
}


def python_line_error(path: Path) -> str:
    with pytest.raises(CorruptLogError) as refused:
        list(read_export(path))
    return str(refused.value)


@pytest.mark.parametrize("name", BROKEN_FILES)
def test_a_broken_export_line_is_named_as_python_names_it(
    page: tuple[WebDriver, str], name: str, tmp_path: Path
) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_bytes(BROKEN_FILES[name].encode())
    report = in_page(page, "verify.js", "return m.verifyExport(args[0]);", BROKEN_FILES[name])
    assert report["ok"] is False
    assert report["first_failure"]["reason"] == python_line_error(path)


def test_a_float_inside_an_event_is_refused_as_python_refuses_it(
    page: tuple[WebDriver, str],
) -> None:
    line = json.dumps({**GOOD_LINE, "data": {"by": "gm", "weight": 1.0}}) + "\n"
    report = in_page(page, "verify.js", "return m.verifyExport(args[0]);", line)
    assert report["first_failure"] == {
        "position": 1,
        "stream_version": 1,
        "reason": "not canonical JSON: a value of type float at $.data.weight",
    }


def test_the_browser_knows_every_event_type_at_its_current_version(
    page: tuple[WebDriver, str],
) -> None:
    versions = in_page(page, "events.js", "return m.SCHEMA_VERSIONS;")
    assert versions == {name: cls.schema_version for name, cls in EVENT_TYPES.items()}


def test_sha256_of_the_browser_is_hashlibs(page: tuple[WebDriver, str]) -> None:
    data = "dés 🎲".encode()
    digest = in_page(page, "bytes.js", "return m.sha256Hex(new Uint8Array(args[0]));", list(data))
    assert digest == hashlib.sha256(data).hexdigest()


def test_words_at_the_rejection_limit_are_skipped_as_python_skips_them(
    page: tuple[WebDriver, str],
) -> None:
    cases = []
    for sides in (4, 6, 7, 10, 12, 20, 2**31 + 1):
        limit = 2**32 - 2**32 % sides
        cases += [[word, sides] for word in (0, sides - 1, limit - 1, limit, 2**32 - 1)]
    body = "return args[0].map(([word, sides]) => m.faceFromWord(word, sides));"
    faces = in_page(page, "derive.js", body, cases)
    assert faces == [face_from_word(word, sides) for word, sides in cases]
