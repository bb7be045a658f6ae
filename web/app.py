"""Build the ASGI app: routes, one-line access log, body limit, errors as problem+json."""

from __future__ import annotations

import logging
import re
import time

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from diceledger.domain import __version__
from diceledger.domain.errors import DiceledgerError, ServerBusyError, SessionBusyError
from diceledger.web.context import WebServices
from diceledger.web.lifespan import live_updates
from diceledger.web.limits import RateLimitedError
from diceledger.web.openapi import operation_id, with_problem_schema
from diceledger.web.page_errors import error_page, is_page
from diceledger.web.problems import (
    BAD_REQUEST,
    FALLBACK,
    RATE_LIMITED,
    TOO_LARGE,
    VALIDATION,
    Problem,
    new_request_id,
    problem_for,
    problem_response,
)
from diceledger.web.routes import (
    campaigns,
    characters,
    devices,
    disputes,
    events,
    joining,
    members,
    pages,
    proofs,
    reads,
    rolls,
    schema,
    service,
    session_pages,
    sessions,
    verifier,
)
from diceledger.web.routes import discord as discord_routes
from diceledger.web.security import SecurityHeaders
from diceledger.web.static_files import STATIC_DIR

ACCESS_LOG = logging.getLogger("diceledger.access")
ERROR_LOG = logging.getLogger("diceledger.error")
# A token, an invite code or a sign-in code in a path (every /join/ and /sign-in/ page
# holds one): the log keeps its kind, never the secret.
SECRET_IN_PATH = re.compile(r"\b(dl[its]_)[A-Za-z0-9_-]+")


def build_app(services: WebServices) -> FastAPI:
    """Return the HTTP face over ``services``."""
    app = FastAPI(
        title="diceledger",
        version=__version__,
        summary="Dice-roll sessions recorded as a verifiable event log.",
        docs_url=None,  # the interactive docs load scripts from another host
        redoc_url=None,
        lifespan=live_updates,
        generate_unique_id_function=operation_id,
    )
    app.state.services = services
    app.openapi = with_problem_schema(app)  # type: ignore[method-assign]
    api = (
        sessions,
        joining,
        rolls,
        disputes,
        reads,
        events,
        members,
        devices,
        characters,
        proofs,
        service,
        schema,
        campaigns,
    )
    for module in (*api, discord_routes, pages, session_pages, verifier):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_exception_handler(DiceledgerError, _error_tree)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _invalid)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, _http)  # type: ignore[arg-type]
    app.add_middleware(BodyLimit, max_bytes=services.settings.max_body_bytes)
    app.add_middleware(ServerFailure)
    app.add_middleware(AccessLog)
    app.add_middleware(SecurityHeaders)
    return app


def _error_tree(request: Request, error: DiceledgerError) -> Response:
    problem = RATE_LIMITED if isinstance(error, RateLimitedError) else problem_for(error)
    headers = _retry_after(error)
    if problem.status >= 500:
        return _server_failure(request, problem, str(error), headers)
    if is_page(request):
        return _with_headers(error_page(request, problem, str(error)), headers)
    return problem_response(problem, str(error), request.url.path, headers)


def _retry_after(error: DiceledgerError) -> dict[str, str]:
    """Return the Retry-After header of an error that says when to try again."""
    if isinstance(error, RateLimitedError | SessionBusyError | ServerBusyError):
        return {"Retry-After": str(error.retry_after)}
    return {}


def _with_headers(response: Response, headers: dict[str, str]) -> Response:
    response.headers.update(headers)
    return response


def _invalid(request: Request, error: RequestValidationError) -> Response:
    first = error.errors()[0] if error.errors() else {}
    # The field's own name, without where it was (body, path, query or header).
    location = first.get("loc", ())[1:]
    where = ".".join(str(part) for part in location)
    message = str(first.get("msg", "invalid request"))
    problem = BAD_REQUEST if first.get("type") == "json_invalid" else VALIDATION
    detail = f"{where}: {message}" if where else message
    if is_page(request):
        return error_page(request, problem, detail)
    return problem_response(problem, detail, request.url.path)


def _http(request: Request, error: HTTPException) -> Response:
    if isinstance(error, _TooLarge):
        return _too_large(request.app.state.services.settings.max_body_bytes, request.url.path)
    problem = Problem(error.status_code, "http", str(error.detail))
    headers = dict(error.headers or {})
    allowed = _allowed(request) if error.status_code == 405 else None
    if allowed is not None:
        headers["Allow"] = allowed
    if is_page(request):
        return _with_headers(error_page(request, problem, str(error.detail)), headers)
    return problem_response(problem, str(error.detail), request.url.path, headers)


def _allowed(request: Request) -> str | None:
    """Return every method the API document lists for the request's path (a 405's Allow).

    Starlette's own Allow names the methods of the first route that matched the path alone,
    and a path may have one route per method (GET and POST .../characters). None for a path
    the document does not hold (a page): Starlette's answer stands."""
    path = request.url.path
    methods = {
        method.upper()
        for template, operations in request.app.openapi()["paths"].items()
        if re.fullmatch("[^/]+".join(map(re.escape, PARAMETER.split(template))), path)
        for method in operations
    }
    return ", ".join(sorted(methods)) if methods else None


PARAMETER = re.compile(r"\{[^}/]+\}")  # a path template's {name}


def _too_large(max_bytes: int, path: str) -> Response:
    return problem_response(TOO_LARGE, f"a request body may have at most {max_bytes:,} bytes", path)


def _server_failure(
    request: Request, problem: Problem, cause: str | None, headers: dict[str, str] | None = None
) -> Response:
    """Log a server failure under a fresh request id, and answer with that id.

    ``cause`` is the line of an error of the tree, which the caller may read; without
    one (an exception nobody raised on purpose) the traceback goes to the log only.
    """
    request_id = new_request_id()
    where = f"{request.method} {masked(request.url.path)} failed (request {request_id})"
    if cause is None:
        ERROR_LOG.exception("%s", where)
        detail = "the server failed; nothing more is said"
    else:
        ERROR_LOG.error("%s: %s", where, cause)
        detail = cause
    if is_page(request):
        page = error_page(request, problem, f"{detail} (request {request_id})")
        return _with_headers(page, headers or {})
    return problem_response(problem, detail, request.url.path, headers, request_id)


def masked(path: str) -> str:
    """Return a path fit for a log: a token or code in it keeps its kind, never the secret."""
    return SECRET_IN_PATH.sub(r"\1...", path)


class ServerFailure:
    """Answer an exception no handler took with a 500 problem, and keep the connection.

    Starlette's last resort answers as well, but then raises again, and uvicorn closes a
    connection whose request raised: the client's next request would fail. An exception
    after the answer began (a stream cut short) still closes it, since only that tells
    the client the body is incomplete.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            if started:
                raise
            await _server_failure(Request(scope), FALLBACK, None)(scope, receive, send)


class AccessLog:
    """Log one line per request: method, path (secrets masked), status and milliseconds."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            path = masked(scope["path"])
            ACCESS_LOG.info("%s %s %d %.1fms", scope["method"], path, status, elapsed)


class BodyLimit:
    """Refuse a request body larger than ``max_bytes`` with 413, declared or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(scope, receive, send)
            return
        seen = 0

        async def counting() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, counting, send)
        except _TooLarge:
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _too_large(self.max_bytes, scope["path"])(scope, receive, send)


class _TooLarge(HTTPException):
    """A streamed body passed the limit (an HTTPException, so body parsing lets it through)."""

    def __init__(self) -> None:
        super().__init__(413, "request body too large")
