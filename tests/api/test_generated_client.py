"""A Python client generated from /openapi.json plays a whole session against a real serve.

openapi-python-client runs at test time, offline, into a temporary folder; the test then
imports what it wrote and calls only that: the document alone is enough to be a client.
Dice are the server's (seeded) except where an outcome must not depend on them (the
opposed check's typed-in faces); every assertion holds for any roll.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.api.served import running_server

GENERATOR = str(Path(sys.executable).with_name("openapi-python-client"))
PACKAGE = "diceledger_generated_client"


def _generate(base_url: str, folder: Path) -> ModuleType:
    document = folder / "openapi.json"
    with urllib.request.urlopen(f"{base_url}/openapi.json", timeout=10) as answer:
        document.write_bytes(answer.read())
    config = folder / "generator.json"
    config.write_text(json.dumps({"post_hooks": []}), encoding="utf-8")  # no formatter here
    command = [GENERATOR, "generate", "--path", str(document), "--config", str(config)]
    command += ["--output-path", str(folder / PACKAGE), "--meta", "none"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(folder))
    return importlib.import_module(PACKAGE)


class Generated:
    """The generated package: its clients, its models and its operations by tag and name."""

    def __init__(self, package: ModuleType, base_url: str) -> None:
        self.package, self.base_url = package, base_url
        self.models = importlib.import_module(f"{PACKAGE}.models")

        self.opened: list[Any] = []

    def client(self, token: str | None = None, strict: bool = True) -> Any:
        """Return a client (``strict``: an answer the document does not declare raises)."""
        made = (
            self.package.Client(base_url=self.base_url, raise_on_unexpected_status=strict)
            if token is None
            else self.package.AuthenticatedClient(
                base_url=self.base_url, token=token, raise_on_unexpected_status=strict
            )
        )
        self.opened.append(made)
        return made

    def close(self) -> None:
        for made in self.opened:
            made.get_httpx_client().close()

    def call(self, tag: str, operation: str, expect: str | None, **arguments: Any) -> Any:
        """Call ``operation`` (its operationId) and check the type of what it parsed."""
        module = importlib.import_module(f"{PACKAGE}.api.{tag}.{operation}")
        answer = module.sync_detailed(**arguments)
        assert answer.status_code < 300, answer.content
        if expect is not None:
            assert type(answer.parsed).__name__ == expect, answer.content
        return answer

    def body(self, model: str, fields: dict[str, Any]) -> Any:
        return getattr(self.models, model).from_dict(fields)


@pytest.mark.slow
def test_a_generated_client_plays_a_whole_session(sqlite_url: str, tmp_path: Path) -> None:
    with running_server(sqlite_url, tmp_path) as server:
        api = Generated(_generate(server.base_url, tmp_path), server.base_url)
        try:
            _play(api)
        finally:
            api.close()


def _play(api: Generated) -> None:
    """Create, invite, join, roll each kind, reroll, dispute, rule, reveal, verify, export."""
    anyone = api.client()
    new = api.body("NewSession", {"title": "Tomb of Ash", "name": "mira"})
    opened = api.call("sessions", "open_session", "OpenedSession", client=anyone, body=new)
    sid, gm = opened.parsed.session_id, api.client(opened.parsed.gm_token)
    ttl = api.body("NewInvite", {"expires_in_minutes": 60})
    invite = api.call("sessions", "create_invite", "Invite", session_id=sid, client=gm, body=ttl)
    join = api.body("JoinRequest", {"invite_code": invite.parsed.invite_code, "name": "ann"})
    joined = api.call("sessions", "join", "Joined", session_id=sid, client=anyone, body=join)
    ann = api.client(joined.parsed.player_token)
    keys = iter(f"key-{n}" for n in range(100))

    def roll(client: Any, fields: dict[str, Any]) -> Any:
        body = api.body("RollBody", fields)
        rolled = api.call(
            "rolls", "request_roll", "RolledAnswer",
            session_id=sid, client=client, body=body, idempotency_key=next(keys),
        )  # fmt: skip
        return rolled.parsed

    for kind in ("roll", "effect", "damage"):
        assert roll(ann, {"kind": kind, "expression": "2d6+1"}).total >= 3
    check = roll(ann, {"kind": "check", "expression": "1d20+5", "target": 15})
    assert check.success in (True, False)
    save = roll(ann, {"kind": "save", "expression": "1d20", "dc": 2, "against": "poison"})
    assert save.target is not None
    # The GM types in the orc's die only: ann's is the server's, and never reaches 35.
    other_side = {"name": "ann", "expression": "1d20n"}
    duel: dict[str, Any] = {"kind": "opposed", "expression": "1d20+20", "for": "orc"}
    duel |= {"faces": [15], "vs": other_side}
    assert roll(gm, duel).winner == "orc"
    hurt = roll(ann, {"kind": "damage", "expression": "2d6", "reroll": 1})
    assert hurt.status == "awaiting_rerolls"
    again = api.body("RerollBody", {"dice": [0]})
    rerolled = api.call(
        "rolls", "reroll", "RolledAnswer",
        session_id=sid, roll_id=hurt.roll_id, client=ann, body=again, idempotency_key="r",
    )  # fmt: skip
    assert rerolled.parsed.status == "resolved"
    blind = roll(gm, {"kind": "check", "expression": "1d20", "target": 10, "blind": True})
    hidden = {"session_id": sid, "roll_id": blind.roll_id}
    seen = api.call("rolls", "show_roll", "HiddenRollAnswer", client=ann, **hidden)
    assert seen.parsed.status == "hidden"
    api.call("rolls", "reveal", "RolledAnswer", client=gm, **hidden)
    reason = api.body("DisputeBody", {"reason": "it fell off the table"})
    disputed = api.call(
        "disputes", "open_dispute", "Dispute",
        session_id=sid, roll_id=check.roll_id, client=ann, body=reason,
    )  # fmt: skip
    assert disputed.parsed.outcome == "open"
    ruling = api.body("RulingBody", {"outcome": "upheld", "note": "it stands"})
    ruled = api.call(
        "disputes", "rule", "Dispute",
        session_id=sid, roll_id=check.roll_id, client=gm, body=ruling,
    )  # fmt: skip
    assert ruled.parsed.outcome == "upheld"
    api.call("sessions", "reveal_seed", "SeedRevealed", session_id=sid, client=gm)
    api.call("sessions", "end", "SessionEnded", session_id=sid, client=gm)
    verified = api.call("reads", "verify", "Verification", session_id=sid, client=ann)
    assert verified.parsed.ok and verified.parsed.verdict == "proven"
    # The generator parses no JSON Lines (it warns, and leaves the answer unparsed):
    # the client still sends the call; its bytes are the export.
    lax = api.client(joined.parsed.player_token, strict=False)
    exported = api.call("reads", "export", None, session_id=sid, client=lax)
    assert exported.headers["content-type"].startswith("application/jsonl")
    lines = exported.content.decode().splitlines()
    assert len(lines) == verified.parsed.events
    assert {json.loads(line)["event_type"] for line in lines} >= {
        "SessionStarted", "RollRequested", "RollDisputed", "DisputeResolved", "SeedRevealed",
    }  # fmt: skip
