"""The member tokens this user holds on servers, one per server and session, kept 0600.

A token is a bearer secret: it is written here once, by ``diceledger join``, and read back
only to send in an Authorization header. Nothing prints it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import click
import platformdirs

from diceledger.domain.shown import shown

FILE = "servers.json"


def origin_of(url: str) -> str:
    """Return a server's origin (scheme://host[:port]) from any URL on it; refuse others."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise click.UsageError(f"not a server URL (http:// or https://): '{shown(url[:200])}'")
    return f"{parts.scheme}://{parts.netloc.lower()}"


@dataclass(frozen=True, slots=True)
class Membership:
    """A member of one session on one server: who, and their token."""

    session_id: str
    name: str
    token: str


class TokenFile:
    """The file of tokens, in the user config directory (or ``folder``)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or Path(platformdirs.user_config_dir("diceledger"))) / FILE

    def _read(self) -> dict[str, dict[str, dict[str, str]]]:
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except ValueError as error:  # not JSON, or not UTF-8: say which file, change nothing
            raise click.ClickException(
                f"the token file {self.path} cannot be read ({error}); move it away and join again"
            ) from None
        servers = loaded.get("servers", {}) if isinstance(loaded, dict) else {}
        return servers if isinstance(servers, dict) else {}

    def _write(self, servers: dict[str, dict[str, dict[str, str]]]) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        # Created 0600 from the start: the token is never readable by others, not even briefly.
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump({"servers": servers}, out, indent=1, sort_keys=True)
        os.chmod(temporary, 0o600)
        os.replace(temporary, self.path)

    def remember(self, server: str, member: Membership) -> None:
        """Keep ``member``'s token for its session on ``server`` (replacing an older one)."""
        servers = self._read()
        servers.setdefault(server, {})[member.session_id] = {
            "name": member.name,
            "token": member.token,
        }
        self._write(servers)

    def membership(self, server: str, session_id: str) -> Membership | None:
        """Return the membership kept for ``session_id`` on ``server``, if any."""
        entry = self._read().get(server, {}).get(session_id)
        if not isinstance(entry, dict) or "token" not in entry:
            return None
        return Membership(session_id, str(entry.get("name", "")), str(entry["token"]))

    def sessions(self, server: str) -> list[Membership]:
        """Return every membership kept on ``server``."""
        entries = self._read().get(server, {})
        return [m for s in sorted(entries) if (m := self.membership(server, s)) is not None]

    def forget(self, server: str) -> list[Membership]:
        """Forget every token kept for ``server``; return what was forgotten."""
        servers = self._read()
        forgotten = self.sessions(server)
        if servers.pop(server, None) is not None:
            self._write(servers)
        return forgotten
