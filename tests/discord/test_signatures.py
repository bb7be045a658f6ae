"""Only requests Discord signed, recently, reach the table; the rest are refused with 401."""

from __future__ import annotations

import json
import time

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient

from diceledger.domain.errors import InvalidInputError, UnauthenticatedError
from diceledger.infra.bootstrap import bootstrap_server
from diceledger.web.app import build_app
from diceledger.web.context import WebServices
from diceledger.web.discord.signature import SignatureCheck, public_key
from tests.discord.conftest import ANN, MIRA, DiscordTable, public_hex


def a_roll(table: DiscordTable) -> dict[str, object]:
    return table.discord.command(ANN, "check", expression="1d20+5", target=15)


def test_a_ping_is_answered_with_a_pong(discord_table: DiscordTable) -> None:
    status, answer = discord_table.discord.deliver({"id": "1", "type": 1, "version": 1})
    assert (status, answer) == (200, {"type": 1})


def test_an_unsigned_request_is_refused(discord_table: DiscordTable, seated: str) -> None:
    before = discord_table.events()
    answer = discord_table.client.post(
        "/discord/interactions", content=json.dumps(a_roll(discord_table))
    )
    assert answer.status_code == 401 and answer.json()["detail"] == "the request is not signed"
    assert discord_table.events() == before


def test_a_tampered_body_is_refused(discord_table: DiscordTable, seated: str) -> None:
    before = discord_table.events()

    def tamper(body: bytes) -> bytes:
        tampered = body.replace(b'"type": 4, "value": 15}', b'"type": 4, "value": 1}')
        assert tampered != body
        return tampered

    status, answer = discord_table.discord.deliver(a_roll(discord_table), tamper=tamper)
    assert status == 401 and answer["detail"] == "invalid request signature"
    assert discord_table.events() == before


def test_a_request_signed_by_another_key_is_refused(
    discord_table: DiscordTable, seated: str
) -> None:
    before = discord_table.events()
    forger = Ed25519PrivateKey.generate()
    status, answer = discord_table.discord.deliver(a_roll(discord_table), key=forger)
    assert status == 401 and answer["detail"] == "invalid request signature"
    assert discord_table.events() == before


@pytest.mark.parametrize(
    ("moved", "detail"),
    [(-301, "the signed request is too old"), (600, "the signed request is from the future")],
)
def test_a_request_signed_at_another_time_is_refused(
    discord_table: DiscordTable, seated: str, moved: int, detail: str
) -> None:
    """A recorded request played again later (or stamped ahead) is refused, though signed."""
    before = discord_table.events()
    stamp = int(time.time()) + moved
    status, answer = discord_table.discord.deliver(a_roll(discord_table), timestamp=stamp)
    assert status == 401 and answer["detail"] == detail
    assert discord_table.events() == before


def test_malformed_signature_headers_are_refused(discord_table: DiscordTable) -> None:
    body = json.dumps({"type": 1}).encode()
    for signature, stamp in (("zz", "1"), ("00" * 64, "-1"), ("00" * 64, "9" * 5000)):
        answer = discord_table.client.post(
            "/discord/interactions",
            content=body,
            headers={"X-Signature-Ed25519": signature, "X-Signature-Timestamp": stamp},
        )
        assert answer.status_code == 401


def test_the_signature_covers_the_raw_bytes_as_sent(discord_table: DiscordTable) -> None:
    """A body signed as sent passes, whatever its spacing: nothing is parsed before the check."""
    compact = json.dumps(discord_table.discord.command(MIRA, "start", title="Raw"))
    spaced = compact.replace(", ", " ,  ").encode()
    status, answer = discord_table.discord.deliver(json.loads(spaced), tamper=lambda _: spaced)
    assert status == 401  # signed the compact form, sent the spaced one
    stamp = str(int(time.time()))
    signature = discord_table.discord.key.sign(stamp.encode() + spaced).hex()
    accepted = discord_table.client.post(
        "/discord/interactions",
        content=spaced,
        headers={"X-Signature-Ed25519": signature, "X-Signature-Timestamp": stamp},
    )
    assert (
        accepted.status_code == 200
        and "starts in this channel" in accepted.json()["data"]["content"]
    )


def test_without_a_public_key_there_is_no_discord_endpoint(sqlite_url: str) -> None:
    parts = bootstrap_server(sqlite_url)
    try:
        client = TestClient(build_app(WebServices(parts.app, parts.access, parts.requests)))
        answer = client.post("/discord/interactions", content=b'{"type": 1}')
        assert answer.status_code == 404
    finally:
        parts.app.close()


def test_the_check_refuses_a_stale_timestamp_by_its_own_clock() -> None:
    key = Ed25519PrivateKey.generate()
    check = SignatureCheck(public_key(public_hex(key)), clock=lambda: 1_000_000.0)
    body = b'{"type": 1}'
    check.check(key.sign(b"999700" + body).hex(), "999700", body)  # 300 s old: still fresh
    with pytest.raises(UnauthenticatedError, match="too old"):
        check.check(key.sign(b"999699" + body).hex(), "999699", body)


@pytest.mark.parametrize("text", ["", "abc", "00" * 31, "zz" * 32])
def test_a_malformed_public_key_is_refused_at_start(text: str) -> None:
    with pytest.raises(InvalidInputError, match="64 hex digits"):
        public_key(text)
