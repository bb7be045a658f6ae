"""Schemathesis, run as an outside client would, finds no failure against a real server.

Every check (``--checks all``) runs on every operation of /openapi.json, once with a GM's
token and once with a player's, each against its own session on a real `diceledger serve`.
The run is bounded (examples per operation, a wall-time limit) and deterministic.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.api.served import Server, running_server

SCHEMATHESIS = str(Path(sys.executable).with_name("schemathesis"))
EXAMPLES = 10  # per operation and phase
WALL_SECONDS = 150  # both runs together stay within a CI minute budget on two cores
# Where the rules of the game judge input beyond what a schema can say (dice notation,
# a save's origin, a target or a DC, which dice may be rerolled, whether a dispute is
# open, a name's normal form and look-alikes, an Idempotency-Key sent with another
# body, a character's name against the members' and who may own it, what a sheet value
# may be), a refusal of schema-valid input is a 422 problem document of a declared type:
# the contract there, and only there; every other operation gets the check whole.
JUDGED_PATHS = "|".join(
    [
        "^/api/v1/odds$",
        "^/api/v1/sessions$",
        "/join$",
        "/rolls(/[^/]+/[a-z]+)?$",
        "/characters(/[^/]+/[a-z-]+)?$",
    ]
)
CONFIG = """
[[operations]]
include-path-regex = "{judged}"
checks.positive_data_acceptance.expected-statuses = [
    "2xx", "401", "403", "404", "409", "422", "429"
]

# The live stream never ends by itself: read a few events, and try it only twice.
[[operations]]
include-path-regex = "/events$"
max-stream-events = 5
generation.max-examples = 2

[parameters]
"path.session_id" = "{sid}"
"path.name" = "{spare}"
"path.device_id" = "{device}"
"path.roll_id" = {roll}
"""


def _call(server: Server, path: str, token: str | None = None, body: Any = None) -> Any:
    headers = {"Content-Type": "application/json", "Idempotency-Key": path}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    method = "GET" if body is None else "POST"
    request = urllib.request.Request(server.base_url + path, data, headers, method=method)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def _session(server: Server, gm_acts: bool) -> tuple[str, dict[str, Any]]:
    """Open a session with a player and a spare member; return the acting token and values.

    The run's member and device are the spare member's, so revoking or signing them out
    cannot take the acting token away mid-run.
    """
    opened = _call(server, "/api/v1/sessions", body={"title": "Contract", "name": "mira"})
    sid, gm = opened["session_id"], opened["gm_token"]
    s = f"/api/v1/sessions/{sid}"
    tokens = {}
    for name in ("ann", "eve"):
        code = _call(server, f"{s}/invites", gm, {})["invite_code"]
        joined = _call(server, f"{s}/join", body={"invite_code": code, "name": name})
        tokens[name] = joined["player_token"]
    actor = gm if gm_acts else tokens["ann"]
    roll = _call(server, f"{s}/rolls", actor, {"kind": "check", "expression": "1d20", "target": 9})
    # The spare member's device: signing it out is refused to anyone else (404).
    device = _call(server, f"{s}/devices", tokens["eve"])["devices"][0]["device_id"]
    values = {"sid": sid, "spare": "eve", "device": device, "roll": roll["roll_id"]}
    return actor, values


def _run(server: Server, folder: Path, token: str, values: dict[str, Any], seconds: float) -> str:
    config = folder / "schemathesis.toml"
    config.write_text(CONFIG.format(judged=JUDGED_PATHS, **values), encoding="utf-8")
    command = [
        SCHEMATHESIS,
        "--config-file",
        str(config),
        "--no-color",
        "run",
        f"{server.base_url}/openapi.json",
        "--checks",
        "all",
        "--header",
        f"Authorization: Bearer {token}",
        "--max-examples",
        str(EXAMPLES),
        "--generation-deterministic",
        "--phases",
        "examples,coverage,fuzzing",
        "--workers",
        "1",  # the coverage phase's generators are not safe in threads on Python 3.11
        "--request-timeout",
        "3",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=seconds, cwd=folder, check=False
    )
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
    return done.stdout


@pytest.mark.slow
def test_schemathesis_finds_no_failure_for_a_gm_or_a_player(
    sqlite_url: str, tmp_path: Path
) -> None:
    with running_server(sqlite_url, tmp_path) as server:
        for gm_acts in (True, False):
            token, values = _session(server, gm_acts)
            folder = tmp_path / ("gm" if gm_acts else "player")
            folder.mkdir()
            out = _run(server, folder, token, values, WALL_SECONDS / 2)
            assert "No issues found" in out or " passed" in out, out[-3000:]
