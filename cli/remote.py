"""The CLI as a client of a server: the same commands, over the API instead of a store.

Requests go through urllib from the standard library: the CLI makes a handful of plain
JSON calls per command, and a client library would be one more dependency in every
install for none of its features. Each write carries one Idempotency-Key for all its tries,
so a try whose answer was lost is answered by the server from what it kept, never rolled
again (docs/api.md, "Nothing rolled twice").
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, urlencode, urlsplit

import click

from diceledger.cli.tokens import Membership, TokenFile
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.session.events import Amount

TRIES = 4  # a write is sent at most this many times, with the same key
PAUSE = 0.5  # seconds before the second try, doubling after
MOST_WAIT = 5.0  # a Retry-After longer than this is waited only this long
TIMEOUT = 15.0  # seconds for one try
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class RemoteError(click.ClickException):
    """A server refused the call, or could not be reached: one line, exit 1 as locally."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A server's answer: its status and its body."""

    status: int
    body: bytes

    def json(self) -> JsonObject:
        """Return the body as a JSON object."""
        document = json.loads(self.body)
        if not isinstance(document, dict):
            raise RemoteError("the server answered something other than a JSON object")
        return document


def _problem(status: int, body: bytes) -> str:
    try:
        document = json.loads(body)
    except ValueError:
        return f"the server answered {status}"
    detail = document.get("detail") if isinstance(document, dict) else None
    return str(detail) if detail else f"the server answered {status}"


class Server:
    """One server, and the tokens this user holds on it."""

    def __init__(self, origin: str, tokens: TokenFile | None = None) -> None:
        self.origin = origin
        self.tokens = tokens or TokenFile()
        host = urlsplit(origin).hostname or ""
        if origin.startswith("http://") and host not in LOOPBACK:
            # Allowed for a table on one network, but the bearer token travels in clear.
            click.secho(
                f"WARNING: {origin} is not https: your token travels unencrypted",
                err=True,
                fg="red",
            )

    def member(self, session_id: str) -> Membership:
        """Return the membership kept for ``session_id`` here, or say how to get one."""
        found = self.tokens.membership(self.origin, session_id)
        if found is None:
            raise RemoteError(
                f"you hold no token for session '{session_id}' on {self.origin}; "
                "`diceledger join INVITE-URL` first"
            )
        return found

    def session_path(self, session_id: str, rest: str = "") -> str:
        """Return the API path of ``session_id`` (and ``rest`` below it)."""
        return f"/api/v1/sessions/{quote(session_id, safe='')}{rest}"

    def get(
        self, path: str, session_id: str | None = None, query: Mapping[str, str] | None = None
    ) -> Answer:
        """GET ``path``, as the member of ``session_id`` when one is named."""
        full = f"{path}?{urlencode(query)}" if query else path
        return self.send("GET", full, None, session_id)

    def post(self, path: str, body: JsonObject | None, session_id: str | None = None) -> Answer:
        """POST ``body`` to ``path`` with one Idempotency-Key for every try."""
        return self.send("POST", path, body, session_id, key=str(uuid.uuid4()))

    def send(
        self,
        method: str,
        path: str,
        body: JsonObject | None,
        session_id: str | None,
        key: str | None = None,
    ) -> Answer:
        """Send one request, tried again (bounded) when the network or a busy server fails it."""
        headers = {"Accept": "application/json"}
        if session_id is not None:
            headers["Authorization"] = f"Bearer {self.member(session_id).token}"
        if key is not None:
            headers["Idempotency-Key"] = key
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        pause = PAUSE
        for attempt in range(1, TRIES + 1):
            request = urllib.request.Request(
                self.origin + path, data=data, headers=headers, method=method
            )
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                    return Answer(response.status, response.read())
            except urllib.error.HTTPError as error:
                with error:  # its connection closes with it
                    answered = error.read()
                wait = _retry_after(error)
                if error.code == 503 and wait is not None and attempt < TRIES:
                    time.sleep(min(wait, MOST_WAIT))
                    continue
                raise RemoteError(_problem(error.code, answered)) from None
            except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
                if attempt == TRIES:
                    raise RemoteError(
                        f"cannot reach {self.origin}: {_reason(error)} (tried {TRIES} times)"
                    ) from None
                time.sleep(pause)
                pause *= 2
        raise AssertionError("unreachable: the loop returns or raises")


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    value = error.headers.get("Retry-After")
    try:
        return None if value is None else max(0.0, float(value))
    except ValueError:
        return None


def _reason(error: Exception) -> str:
    reason = getattr(error, "reason", None) or error
    if isinstance(reason, socket.timeout | TimeoutError):
        return "timed out"
    return str(reason) or type(reason).__name__


def amounts(sources: tuple[Amount, ...]) -> list[JsonValue]:
    """Return Amounts as the API's sources: ``{"amount", "label"}``."""
    return [{"amount": a.amount, "label": a.label} for a in sources]
