"""docs/discord.md shows the JSON a command produces: the server answers exactly that."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.discord.conftest import ANN, MIRA, build_table, invite_code

DOC = Path(__file__).resolve().parents[2] / "docs" / "discord.md"
EXAMPLE = re.compile(r"<!-- example: ([a-z-]+) -->\n```json\n(.*?)\n```", re.DOTALL)
SEED = bytes(range(32))  # the documented session's seed, revealed here and nowhere else
# A checkpoint's words come from its root, which covers the events' times: compared as words.
WORDS = re.compile(r"(checkpoint #[0-9]+ \u00b7 )[a-z]+( [a-z]+){4}")


def worded(answer: Any) -> Any:
    """Return an answer with each checkpoint's five words replaced by a placeholder."""
    return json.loads(WORDS.sub(r"\1<five words>", json.dumps(answer, ensure_ascii=False)))


def examples() -> dict[str, Any]:
    """Return the JSON examples of docs/discord.md by name."""
    return {name: json.loads(body) for name, body in EXAMPLE.findall(DOC.read_text())}


def test_the_documented_requests_get_the_documented_answers(
    sqlite_url: str, signing_key: Ed25519PrivateKey
) -> None:
    shown = examples()
    assert len(shown) == 7
    table = build_table(sqlite_url, signing_key)
    table.services.app.reseed(lambda: SEED, lambda: "1a2b3c")  # the doc's session, exactly
    try:
        with table.client:
            table.discord.run(MIRA, "start", title="Tomb of Ash")
            table.discord.run(ANN, "join", code=invite_code(table))
            for name in ("check", "click", "blind"):
                status, answer = table.discord.deliver(shown[f"{name}-request"])
                assert status == 200
                assert worded(answer) == worded(shown[f"{name}-response"]), name
            method, url, follow_up = table.webhooks.calls[-1]
            request = shown["blind-request"]
            assert (method, url.removeprefix("https://discord.test/api/v10")) == (
                "POST",
                f"/webhooks/{request['application_id']}/{request['token']}",
            )
            assert worded(follow_up) == worded(shown["blind-follow-up"])
    finally:
        table.services.app.close()
        table.engine.dispose()


def test_the_documented_endpoint_and_variables_are_the_codes() -> None:
    from diceledger.infra.app.discord_calls import DEFAULT_API_URL
    from diceledger.web.discord import face
    from diceledger.web.discord.signature import MAX_AGE_SECONDS

    text = DOC.read_text()
    assert f"PUT {DEFAULT_API_URL}/applications/{{app id}}/commands" in text
    for variable in (face.PUBLIC_KEY, face.PUBLIC_URL, face.API_URL, face.DEFER_AFTER):
        assert f"`{variable}`" in text
    assert MAX_AGE_SECONDS == 5 * 60 and "more than five minutes ago" in text
