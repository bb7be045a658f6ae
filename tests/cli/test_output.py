"""Progress bars appear on a terminal for long work, and never change what is yielded."""

from __future__ import annotations

import io

import pytest

from diceledger.cli.output import PROGRESS_THRESHOLD, progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_long_work_on_a_terminal_shows_a_bar_on_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stderr", terminal)
    items = list(progress(range(PROGRESS_THRESHOLD), PROGRESS_THRESHOLD, "verifying"))
    assert items == list(range(PROGRESS_THRESHOLD))
    assert "verifying" in terminal.getvalue()


def test_short_work_or_a_pipe_shows_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert list(progress(range(10), 10, "verifying")) == list(range(10))
    assert terminal.getvalue() == ""
    piped = io.StringIO()
    monkeypatch.setattr("sys.stderr", piped)
    assert len(list(progress(range(PROGRESS_THRESHOLD), PROGRESS_THRESHOLD, "x"))) == (
        PROGRESS_THRESHOLD
    )
    assert piped.getvalue() == ""
