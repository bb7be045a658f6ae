"""The pages' templates: Jinja2 with autoescaping always on, kept beside this module.

Autoescaping is on for every template whatever its file name, so a name, a label or a
reason a member typed reaches a page only as text. The one markup inserted as is, the
SVG charts, is built by web/charts.py, which escapes its own text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import jinja2
from fastapi import Request
from markupsafe import Markup, escape
from starlette.responses import Response
from starlette.templating import Jinja2Templates

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"

_environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
    autoescape=True,
    undefined=jinja2.StrictUndefined,  # a misspelt name fails loudly instead of printing ""
    trim_blocks=True,
    lstrip_blocks=True,
)

_MARKS = re.compile(r"\*\*(.+?)\*\*|~~(.+?)~~")


def marked(text: str) -> Markup:
    """Escape a timeline line, then show its **counted** and ~~dropped~~ dice as markup."""

    def tag(match: re.Match[str]) -> str:
        counted, dropped = match.groups()
        return f"<strong>{counted}</strong>" if counted is not None else f"<del>{dropped}</del>"

    return Markup(_MARKS.sub(tag, str(escape(text))))


def session_api(session_id: str) -> str:
    """Return a session's path in the JSON API, where the pages' scripts read and write."""
    return f"/api/v1/sessions/{session_id}"


_environment.filters["marked"] = marked
_environment.filters["session_api"] = session_api
TEMPLATES = Jinja2Templates(env=_environment)


def render(
    request: Request, name: str, context: Mapping[str, object], status: int = 200
) -> Response:
    """Return the page ``name`` rendered with ``context``."""
    return TEMPLATES.TemplateResponse(request, name, dict(context), status_code=status)
