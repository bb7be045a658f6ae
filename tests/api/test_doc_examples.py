"""The curl examples of docs/api.md run as written against a real `diceledger serve`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.api.route_table import API_DOC, documented_routes
from tests.api.served import running_server

DOC_ADDRESS = "http://127.0.0.1:8000"  # where the examples expect the server
TOOLS = ("curl", "jq")


def sh_blocks(text: str) -> list[str]:
    """Return the doc's `sh` blocks in order (`console` blocks are for reading only)."""
    return re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)


def examples_script(base_url: str) -> str:
    """Return every `sh` block of docs/api.md as one script aimed at ``base_url``."""
    blocks = sh_blocks(API_DOC.read_text(encoding="utf-8"))
    script = "\n".join(blocks)
    assert DOC_ADDRESS in script, "the examples no longer name the server's address"
    return script.replace(DOC_ADDRESS, base_url)


def require_tools() -> None:
    """Skip when curl or jq is missing, except in CI (.ci/run installs them)."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if not missing:
        return
    reason = f"the docs/api.md examples need {' and '.join(missing)}: run .ci/install-http-tools"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def test_the_walkthrough_and_every_route_example_run_against_a_real_server(
    tmp_path: Path,
) -> None:
    require_tools()
    # curl reads this file first: an HTTP error fails the example, showing the problem.
    (tmp_path / ".curlrc").write_text("fail-with-body\nshow-error\n", encoding="utf-8")
    env = {**os.environ, "CURL_HOME": str(tmp_path)}
    with running_server(f"sqlite:///{tmp_path / 'table.sqlite'}", tmp_path) as server:
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", examples_script(server.base_url)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}\n{server.log_text()}"
    log = server.log_text()
    assert re.search(r"POST /api/v1/sessions/[\w-]+/rolls/\d+/ruling 200 ", log)
    assert "dlt_" not in log and "dli_" not in log, "the server logged a secret"


API_PATHS = ("/api/", "/discord/", "/healthz", "/openapi.json")


def test_the_examples_cover_every_documented_route() -> None:
    script = "\n".join(sh_blocks(API_DOC.read_text(encoding="utf-8")))
    called = set(re.findall(r'"?\$API(/[^"\s?]*)', script)) | set(
        re.findall(r"127\.0\.0\.1:8000(/[^\s'\"]*)", script)
    )

    def pattern(path: str) -> re.Pattern[str]:
        shape = re.sub(r"\\\{[a-z_]+\\\}", r"[^/]+", re.escape(path.removeprefix("/api/v1")))
        return re.compile(f"^{shape}$")

    streams = {"/api/v1/sessions/{session_id}/events"}  # a stream has a console example
    # The pages are for browsers: docs/pages.md shows them and tests/web drives them.
    pages = {row.path for row in documented_routes() if not row.path.startswith(API_PATHS)}
    missing = [
        str(row)
        for row in documented_routes()
        if row.path not in streams | pages and not any(pattern(row.path).match(c) for c in called)
    ]
    assert missing == []


def test_without_curl_or_jq_the_examples_skip_and_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="need curl and jq"):
        require_tools()


def test_in_ci_missing_curl_or_jq_fails_the_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda tool: None if tool == "jq" else "/usr/bin/" + tool)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="need jq"):
        require_tools()
