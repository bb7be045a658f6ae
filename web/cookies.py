"""The cookie that signs a browser in to one session: the member's token, never readable by JS."""

from __future__ import annotations

from fastapi import Request
from starlette.responses import Response

from diceledger.web.auth import cookie_name
from diceledger.web.security import is_https

COOKIE_DAYS = 30


def sign_in(response: Response, request: Request, session_id: str, token: str) -> None:
    """Keep ``token`` in the session's cookie: HttpOnly, SameSite=Strict, Secure over HTTPS.

    HttpOnly keeps it from page scripts; SameSite=Strict keeps the browser from sending
    it with any request another site starts (a form, an image, a fetch).
    """
    response.set_cookie(
        cookie_name(session_id),
        token,
        max_age=COOKIE_DAYS * 24 * 3600,
        httponly=True,
        samesite="strict",
        secure=is_https(request),
        path="/",
    )
