"""The CLI words the error tree: one line each, with its own hints; the core names no command."""

from __future__ import annotations

import ast
from pathlib import Path

from diceledger.cli.errors import message_for
from diceledger.domain.errors import (
    NotAMemberError,
    RollError,
    SchemaOutdatedError,
    unknown_session,
)

ROOT = Path(__file__).resolve().parents[2]


def test_an_unknown_session_points_at_session_list() -> None:
    line = message_for(unknown_session("tomb-1a2b3c"))
    assert line == "unknown session 'tomb-1a2b3c'; `diceledger session list` shows yours"


def test_a_stranger_is_told_how_to_join() -> None:
    line = message_for(NotAMemberError("eve", "tomb-1a2b3c"))
    assert (
        line == "eve is not in session 'tomb-1a2b3c'; `diceledger session join tomb-1a2b3c` first"
    )


def test_an_outdated_schema_points_at_db_upgrade() -> None:
    line = message_for(SchemaOutdatedError("database schema is at 0004, code needs 0005"))
    assert line.endswith("; run `diceledger db upgrade`")


def test_other_errors_are_printed_as_they_are() -> None:
    assert message_for(RollError("a save records what it is against")) == (
        "a save records what it is against"
    )


def cli_mentions(path: Path) -> list[int]:
    """Return the lines of string literals (docstrings aside) that name a CLI command."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and "`diceledger " in node.value
        and id(node) not in docstrings
    ]


def test_no_message_of_the_domain_or_infra_names_a_cli_command() -> None:
    # Hints belong to a face: the HTTP face has no `diceledger ...` commands to offer.
    offenders = {
        str(path.relative_to(ROOT)): lines
        for folder in ("domain", "infra")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if (lines := cli_mentions(path))
    }
    assert offenders == {}


def test_the_scan_finds_a_command_named_in_a_message(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        '"""Run `diceledger x`."""\nraise ValueError("run `diceledger db upgrade`")\n'
    )
    assert cli_mentions(module) == [2]
