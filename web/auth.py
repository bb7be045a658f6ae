"""Authentication: one dependency that yields the acting member, or refuses.

The member comes only from a credential: a bearer token, or the browser's HttpOnly cookie
that holds one. Never from a request body, a query string or a header naming a member.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from diceledger.infra.app.access import Credential
from diceledger.web.context import Services

COOKIE_PREFIX = "dl_"  # one cookie per session the browser holds a token for


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
    credential = web.access.authenticate(bearer_token(request, session_id))
    return web.access.in_session(credential, session_id)


Member = Annotated[Credential, Depends(session_member)]
