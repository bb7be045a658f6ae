"""How commands print: JSON for programs, short styled lines for people.

Colour and bold appear only on a terminal and never when NO_COLOR is set.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click


def color_enabled() -> bool:
    """Tell whether to style output: a terminal, and NO_COLOR not set."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


class AnsiStyle:
    """Bold for the die that counts, dim and struck for dice that do not."""

    def kept(self, text: str) -> str:
        """Mark a counted die."""
        return click.style(text, bold=True)

    def dropped(self, text: str) -> str:
        """Mark a dropped or rerolled-away die."""
        return click.style(text, dim=True, strikethrough=True)


def style() -> Any:
    """Return the style for dice in human output."""
    from domain.dice.render import PLAIN

    return AnsiStyle() if color_enabled() else PLAIN


def emit_json(document: Any) -> None:
    """Print one JSON document on one line."""
    click.echo(json.dumps(document, ensure_ascii=False))


def verdict(success: bool | None) -> str:
    """Return 'success'/'failure' coloured when colour is on."""
    if success is None:
        return ""
    word = "success" if success else "failure"
    if not color_enabled():
        return word
    return click.style(word, fg="green" if success else "red")
