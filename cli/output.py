"""How commands print: JSON for programs, short styled lines for people.

Colour and bold appear only on a terminal and never when NO_COLOR is set. Text that
people typed (names, titles, labels, reasons, ids, paths, error messages quoting them)
goes through ``shown`` before it reaches a terminal, so it cannot move the cursor, clear
the screen or start a line of its own.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any, TypeVar

import click

from diceledger.domain.shown import shown as shown  # the one escaper, for every face


def local_time(moment: datetime) -> str:
    """Return a time as its reader reads it: in their own zone, named, to the minute.

    JSON keeps RFC 3339 in UTC; this is for people (the zone comes from TZ or the system).
    """
    return moment.astimezone().strftime("%Y-%m-%d %H:%M %Z")


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
    from diceledger.domain.dice.render import PLAIN

    return AnsiStyle() if color_enabled() else PLAIN


def emit_json(document: Any) -> None:
    """Print one JSON document on one line."""
    click.echo(json.dumps(document, ensure_ascii=False))


def counted(count: int, noun: str) -> str:
    """Return '1 roll', '3 rolls': a count with its noun in the number it reads in."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def verdict(success: bool | None) -> str:
    """Return 'success'/'failure' coloured when colour is on."""
    if success is None:
        return ""
    word = "success" if success else "failure"
    if not color_enabled():
        return word
    return click.style(word, fg="green" if success else "red")


# Work over fewer events than this finishes before a bar would be worth reading.
PROGRESS_THRESHOLD = 5_000
T = TypeVar("T")


def progress(items: Iterable[T], length: int, label: str) -> Iterator[T]:
    """Yield the items, with a progress bar on a terminal's stderr when there are many."""
    if length < PROGRESS_THRESHOLD or not sys.stderr.isatty():
        yield from items
        return
    with click.progressbar(items, length=length, label=label, file=sys.stderr) as bar:
        yield from bar
