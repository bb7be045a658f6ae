"""Authentication: one dependency that yields the acting member, or refuses.

The member comes only from a credential: a bearer token, or the browser's HttpOnly cookie
that holds one. Never from a request body, a query string or a header naming a member.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from diceledger.domain.errors import PermissionDeniedError
from diceledger.infra.app.access import Credential
from diceledger.web.context import Services

COOKIE_PREFIX = "dl_"  # one cookie per session the browser holds a token for
PAGE_HEADER = "X-Requested-With"
PAGE_HEADER_VALUE = "diceledger"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def bearer_token(request: Request, session_id: str | None = None) -> str | None:
    """Return the request's token: the Authorization header, else the session's cookie."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        return token.strip() if scheme.lower() == "bearer" and token.strip() else ""
    if session_id is not None:
        return request.cookies.get(cookie_name(session_id))
    return None


def cookie_name(session_id: str) -> str:
    """Return the cookie that holds the browser's token for a session."""
    return COOKIE_PREFIX + "".join(c if c.isalnum() or c in "-_" else "_" for c in session_id)


def session_member(request: Request, session_id: str, web: Services) -> Credential:
    """Return the member acting in ``session_id``; refuse anyone else."""
    token = bearer_token(request, session_id)
    if token is not None and "authorization" not in request.headers:
        require_own_page(request)
    credential = web.access.authenticate(token)
    return web.access.in_session(credential, session_id)


def require_own_page(request: Request) -> None:
    """Refuse a change that rides on the cookie unless this site's own scripts sent it.

    Cross-site request forgery needs the browser to attach the cookie to a request another
    site started. SameSite=Strict already stops that in current browsers; this is the
    second lock. A form cannot set a header, and a script on another origin can set this
    one only after a CORS preflight, which this server never grants; so a change that
    carries it was sent by the pages' own scripts (web/static/api.js). A bearer token is
    never sent by a browser on its own, so requests carrying one need no such proof.
    """
    if request.method in SAFE_METHODS:
        return
    if request.headers.get(PAGE_HEADER) != PAGE_HEADER_VALUE:
        raise PermissionDeniedError(
            f"a change sent with the browser's cookie needs the header "
            f"{PAGE_HEADER}: {PAGE_HEADER_VALUE} (this site's pages send it)"
        )


Member = Annotated[Credential, Depends(session_member)]
