"""The table of docs/api.md that says who may call each route, and the routes the app serves.

The authorization matrix reads the same table a reader does, so the documentation and the
tests cannot drift apart: a route the app serves without a row fails, and so does a row
whose `who` is not one of the four kinds of caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from starlette.routing import BaseRoute, Mount, Route

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
HEADER = ("method", "path", "who")


class Who(StrEnum):
    """Who may call a route, as the table's `who` column says it."""

    ANYONE = "anyone"
    INVITE_HOLDER = "invite holder"
    MEMBER = "member"
    GM = "GM"
    DISCORD = "Discord"  # only a request Discord signed; a member's token is worth nothing


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the table: a route and who may call it."""

    method: str
    path: str
    who: Who

    @property
    def route(self) -> tuple[str, str]:
        """Return (method, path)."""
        return self.method, self.path

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


def documented_routes(text: str | None = None) -> list[Row]:
    """Return the rows of the one table in docs/api.md whose columns start method|path|who."""
    return [
        Row(method.upper(), path.strip("`"), Who(who))
        for method, path, who, *_ in markdown_table(HEADER, text)
    ]


def markdown_table(header: tuple[str, ...], text: str | None = None) -> list[tuple[str, ...]]:
    """Return the cells of the one table in docs/api.md whose first columns are ``header``."""
    lines = (API_DOC.read_text(encoding="utf-8") if text is None else text).splitlines()
    starts = [i for i, line in enumerate(lines) if _cells(line)[: len(header)] == header]
    if len(starts) != 1:
        raise AssertionError(f"docs/api.md needs one table headed {header}, found {len(starts)}")
    rows = []
    for line in lines[starts[0] + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(_cells(line))
    return rows


def _cells(line: str) -> tuple[str, ...]:
    if not line.startswith("|"):
        return ()
    return tuple(cell.strip() for cell in line.strip().strip("|").split("|"))


def served_routes(routes: Iterable[BaseRoute]) -> set[tuple[str, str]]:
    """Return every (method, path) the app answers; HEAD goes with its GET.

    A parameter's converter (``{name:path}``) is how it is matched, not its name: dropped.
    """
    walked = _walk(routes, "")
    return {(method, re.sub(r":\w+}", "}", path)) for method, path in walked if method != "HEAD"}


def _walk(routes: Iterable[BaseRoute], prefix: str) -> Iterator[tuple[str, str]]:
    for route in routes:
        if isinstance(route, Route):
            for method in route.methods or ():
                yield method, prefix + route.path
        elif isinstance(route, Mount):
            # A mounted app (static files, say) answers GET under its path.
            yield "GET", f"{prefix}{route.path}/{{path}}"
        elif (included := getattr(route, "original_router", None)) is not None:
            # FastAPI keeps an included router as one entry; an APIRouter's own prefix is
            # already in its routes' paths, one given to include_router is not.
            extra = getattr(getattr(route, "include_context", None), "prefix", "")
            yield from _walk(included.routes, prefix + extra)
        else:
            raise AssertionError(f"teach served_routes about {type(route).__name__}")
