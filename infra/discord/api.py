"""The calls diceledger makes to Discord's HTTP API, and nothing else leaves the server.

Two kinds of call: registering the slash commands (with the bot token, once, from the
command line), and answering an interaction after its first reply (with the interaction's
own token, which Discord accepts for 15 minutes). The transport is a one-method port, so
tests point it at a local fake; the real one is the standard library's.

Neither token is ever logged: the interaction token sits in the URL path, so failures are
reported by status and interaction id only.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.message import Message as HTTPMessage
from typing import IO, Protocol

from diceledger.domain import __version__
from diceledger.domain.errors import RemoteServiceError
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.infra.app.discord_calls import DEFAULT_API_URL, InteractionHandle

USER_AGENT = f"DiscordBot (diceledger, {__version__})"
TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class HttpAnswer:
    """What the other end answered: its status and body."""

    status: int
    body: bytes


class Transport(Protocol):
    """Send one HTTP request and return the answer; raise RemoteServiceError if none came."""

    def send(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None
    ) -> HttpAnswer: ...


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse to follow redirects: a token must never travel to an address not chosen."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> None:
        """Follow nothing; the 3xx answer comes back as it is."""
        return None


class UrllibTransport:
    """The real transport: urllib, with a timeout, and no redirect to follow."""

    def __init__(self, timeout: float = TIMEOUT_SECONDS) -> None:
        self._timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirect())

    def send(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None
    ) -> HttpAnswer:
        """Send the request; an HTTP error status is an answer, a dead connection is not."""
        request = urllib.request.Request(url, data=body, headers=dict(headers), method=method)
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                return HttpAnswer(response.status, response.read())
        except urllib.error.HTTPError as error:
            return HttpAnswer(error.code, error.read())
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise RemoteServiceError(f"Discord could not be reached: {reason}") from None


class DiscordApi:
    """Discord's HTTP API, as far as diceledger uses it (the DiscordCalls of infra/app)."""

    def __init__(self, transport: Transport, base_url: str = DEFAULT_API_URL) -> None:
        self._transport = transport
        self._base_url = base_url.rstrip("/")

    def register_commands(
        self,
        application_id: str,
        bot_token: str,
        commands: Sequence[JsonObject],
        guild_id: str | None = None,
    ) -> list[JsonValue]:
        """Replace the application's commands with ``commands``; return what Discord kept.

        Without a guild the commands are global; with one they apply to that server only
        (useful while trying a change).
        """
        path = f"/applications/{application_id}"
        path += f"/guilds/{guild_id}/commands" if guild_id else "/commands"
        headers = {"Authorization": f"Bot {bot_token}"}
        answer = self._call("PUT", path, list(commands), headers, "registering the commands")
        registered = json.loads(answer.body or b"[]")
        if not isinstance(registered, list):
            raise RemoteServiceError("Discord answered the registration with something else")
        return registered

    def edit_original(self, handle: InteractionHandle, message: JsonObject) -> None:
        """Replace the interaction's first reply (after a deferred one, its real answer)."""
        path = f"/webhooks/{handle.application_id}/{handle.token}/messages/@original"
        self._call("PATCH", path, message, {}, f"editing the reply to {handle.interaction_id}")

    def delete_original(self, handle: InteractionHandle) -> None:
        """Delete the interaction's first reply."""
        path = f"/webhooks/{handle.application_id}/{handle.token}/messages/@original"
        self._call("DELETE", path, None, {}, f"deleting the reply to {handle.interaction_id}")

    def follow_up(self, handle: InteractionHandle, message: JsonObject) -> None:
        """Post one more message for the interaction (it may differ in who can see it)."""
        path = f"/webhooks/{handle.application_id}/{handle.token}"
        self._call("POST", path, message, {}, f"following up {handle.interaction_id}")

    def _call(
        self,
        method: str,
        path: str,
        document: JsonValue,
        headers: Mapping[str, str],
        what: str,
    ) -> HttpAnswer:
        body = None if document is None else json.dumps(document).encode()
        sent = {"User-Agent": USER_AGENT, **headers}
        if body is not None:
            sent["Content-Type"] = "application/json"
        answer = self._transport.send(method, self._base_url + path, sent, body)
        if not 200 <= answer.status < 300:
            raise RemoteServiceError(
                f"Discord refused {what}: HTTP {answer.status} {_reason(answer.body)}"
            )
        return answer


def _reason(body: bytes) -> str:
    """Return Discord's own message from an error body, kept short."""
    try:
        document = json.loads(body)
    except ValueError:
        return ""
    message = document.get("message") if isinstance(document, dict) else None
    return str(message)[:200] if message else ""
