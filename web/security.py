"""Headers every answer carries, and the token that proves a page's form came from here.

The pages load nothing from another host and run no inline script, so the strictest
useful Content-Security-Policy fits them all: ``default-src 'self'``. One script alone may
also compile WebAssembly: the verify page's worker, which runs Pyodide. A dedicated
worker is held to the policy of its own script's answer, so only that answer carries
``'wasm-unsafe-eval'`` (which allows WebAssembly, not JavaScript's eval).
"""

from __future__ import annotations

import secrets

from fastapi import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from diceledger.domain.errors import PermissionDeniedError

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
    "object-src 'none'"
)
# The verify page's worker (static/verify-worker.js), and the policy it runs under.
VERIFIER_WORKER = "/static/verify-worker.js"
WORKER_POLICY = CONTENT_SECURITY_POLICY + "; script-src 'self' 'wasm-unsafe-eval'"
HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    # An invite or sign-in page's address holds its code: never pass it on as a referrer.
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)

FORM_COOKIE = "dlform"
FORM_FIELD = "form_token"


class SecurityHeaders:
    """Add the security headers to every HTTP answer, pages, API and static files alike."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        policy = WORKER_POLICY if scope["path"] == VERIFIER_WORKER else CONTENT_SECURITY_POLICY
        headers = ((b"content-security-policy", policy.encode()), *HEADERS)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in headers if name not in names]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, sending)


def is_https(request: Request) -> bool:
    """Tell whether the browser reached us over HTTPS (uvicorn reads a proxy's header)."""
    return request.url.scheme == "https"


# Login CSRF: the forms that sign someone in (new session, join, sign-in) are posted by a
# browser that holds no session cookie yet, so they carry a token instead, the same value
# as a SameSite=Strict cookie set with the form (the double-submit pattern). A form posted
# from another site arrives without that cookie, and is refused.


def form_token(request: Request) -> str:
    """Return the browser's form token, or a new one to set with the form."""
    return request.cookies.get(FORM_COOKIE) or secrets.token_urlsafe(32)


def keep_form_token(response: Response, request: Request, token: str) -> None:
    """Set the form token's cookie on the page that shows the form."""
    response.set_cookie(
        FORM_COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=is_https(request),
        path="/",
    )


def check_form_token(request: Request, submitted: str) -> None:
    """Refuse a form whose token is missing or is not this browser's."""
    kept = request.cookies.get(FORM_COOKIE, "")
    if not kept or not secrets.compare_digest(kept.encode(), submitted.encode()):
        raise PermissionDeniedError(
            "this form was not sent from this site's own page (or it expired); reload the "
            "page and send it again"
        )
