"""What the faces ask of Discord's HTTP API: register the slash command, answer an
interaction after its first reply. infra/discord/api.py makes the calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from diceledger.domain.json import JsonObject, JsonValue

DEFAULT_API_URL = "https://discord.com/api/v10"


@dataclass(frozen=True, slots=True)
class InteractionHandle:
    """What answering an interaction later needs: the application and the interaction token."""

    application_id: str
    token: str
    interaction_id: str  # for messages about it; the token is never shown


class DiscordCalls(Protocol):
    """Discord's HTTP API, as far as diceledger uses it; a refusal raises RemoteServiceError."""

    def register_commands(
        self,
        application_id: str,
        bot_token: str,
        commands: Sequence[JsonObject],
        guild_id: str | None = None,
    ) -> list[JsonValue]:
        """Replace the application's commands with ``commands``; return what Discord kept."""
        ...

    def edit_original(self, handle: InteractionHandle, message: JsonObject) -> None:
        """Replace the interaction's first reply (after a deferred one, its real answer)."""
        ...

    def delete_original(self, handle: InteractionHandle) -> None:
        """Delete the interaction's first reply."""
        ...

    def follow_up(self, handle: InteractionHandle, message: JsonObject) -> None:
        """Post one more message for the interaction (it may differ in who can see it)."""
        ...
