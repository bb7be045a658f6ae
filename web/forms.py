"""A page's form as posted: URL-encoded fields, read once, each a single string."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import parse_qsl

from fastapi import Depends, Request

from diceledger.domain.errors import InvalidInputError
from diceledger.infra.app.roll_form import MAX_TEXT


async def form_fields(request: Request) -> dict[str, str]:
    """Return the posted fields (the last value of a repeated one)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind != "application/x-www-form-urlencoded":
        raise InvalidInputError("a page's form is sent URL-encoded")
    body = (await request.body()).decode("utf-8", "replace")
    return dict(parse_qsl(body, keep_blank_values=True, max_num_fields=20))


Fields = Annotated[dict[str, str], Depends(form_fields)]


def text_field(fields: dict[str, str], name: str, what: str, required: bool = True) -> str:
    """Return a field stripped of outer spaces; refuse it empty (if required) or too long."""
    value = fields.get(name, "").strip()
    if required and not value:
        raise FieldError(name, f"give {what}")
    if len(value) > MAX_TEXT:
        raise FieldError(name, f"{what} may have at most {MAX_TEXT} characters")
    return value


class FieldError(InvalidInputError):
    """A form field the page refuses before asking the application; it names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
