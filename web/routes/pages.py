"""Pages that sign a browser in: open a session, join by invite, sign in with a one-time code.

Each POST checks the form's token (web/security.py), calls the access service, keeps the
new token in the session's HttpOnly cookie and redirects to the table: a token never
appears in a URL or a page. A refusal shows the form again with the message next to the
field it concerns.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from diceledger.domain.errors import DiceledgerError, PermissionDeniedError
from diceledger.web.context import Services, WebServices
from diceledger.web.cookies import sign_in
from diceledger.web.forms import FieldError, Fields, text_field
from diceledger.web.security import FORM_FIELD, check_form_token, form_token, keep_form_token
from diceledger.web.templating import render

router = APIRouter(tags=["pages"], include_in_schema=False)


def _form_page(
    request: Request,
    name: str,
    context: Mapping[str, object],
    errors: Mapping[str, str] | None = None,
    status: int = 200,
) -> Response:
    token = form_token(request)
    page = {"session": None, "form_token": token, "errors": dict(errors or {}), **context}
    response = render(request, name, page, status)
    keep_form_token(response, request, token)
    return response


def _to_table(request: Request, session_id: str, token: str) -> Response:
    response = RedirectResponse(f"/s/{session_id}", status_code=303)
    sign_in(response, request, session_id, token)
    return response


@router.get("/")
@router.get("/new")
def home(request: Request) -> Response:
    """Show the form that opens a new session."""
    return _form_page(request, "home.html", {"values": {}})


@router.post("/new")
def open_session(request: Request, fields: Fields, web: Services) -> Response:
    """Open a session; its creator is signed in as its GM."""
    check_form_token(request, fields.get(FORM_FIELD, ""))
    given: dict[str, str] = {}
    errors: dict[str, str] = {}  # every field's problem at once, not one per try
    for field, what in (("title", "the session a title"), ("name", "your name")):
        try:
            given[field] = text_field(fields, field, what)
        except FieldError as error:
            errors[error.field] = str(error)
    if errors:
        return _form_page(request, "home.html", {"values": fields}, errors, 422)
    opened = web.access.open_session(given["title"], given["name"], "forbid_manual" not in fields)
    return _to_table(request, opened.started.session_id, opened.gm_token)


def _session_title(web: WebServices, session_id: str) -> str:
    return web.app.title(session_id)


@router.get("/join/{code}")
def join_form(code: str, request: Request, web: Services) -> Response:
    """Ask for a name (and an optional client seed) to join by this invite."""
    session_id = web.access.invite_session(code)
    context = {"code": code, "title": _session_title(web, session_id), "values": {}}
    return _form_page(request, "join.html", context)


@router.post("/join/{code}")
def join(code: str, request: Request, fields: Fields, web: Services) -> Response:
    """Join the invite's session as a player, signed in by cookie."""
    check_form_token(request, fields.get(FORM_FIELD, ""))
    session_id = web.access.invite_session(code)
    web.limits.use(f"join:{session_id}", web.settings.redemptions_per_minute, "invite codes")
    try:
        name = text_field(fields, "name", "your name")
        seed = text_field(fields, "client_seed", "a client seed", required=False)
        joined = web.access.join(session_id, code, name, seed)
    except PermissionDeniedError:
        raise  # the code itself is no good: the whole page says so
    except DiceledgerError as error:
        field = error.field if isinstance(error, FieldError) else "name"
        context = {"code": code, "title": _session_title(web, session_id), "values": fields}
        return _form_page(request, "join.html", context, {field: str(error)}, 422)
    return _to_table(request, session_id, joined.token)


@router.get("/sign-in/{code}")
def sign_in_form(code: str, request: Request, web: Services) -> Response:
    """Ask to confirm a sign-in (a GET never spends the code: link previews fetch pages)."""
    session_id = web.access.sign_in_session(code)
    context = {"code": code, "title": _session_title(web, session_id)}
    return _form_page(request, "sign_in.html", context)


@router.post("/sign-in/{code}")
def sign_in_with_code(code: str, request: Request, fields: Fields, web: Services) -> Response:
    """Spend a one-time sign-in code: this browser acts as the member who made it."""
    check_form_token(request, fields.get(FORM_FIELD, ""))
    joined = web.access.sign_in(code)
    return _to_table(request, joined.session_id, joined.token)
