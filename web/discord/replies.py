"""What diceledger answers an interaction with: messages, buttons, and Discord's JSON for them.

An interaction gets one first reply (a new message, or for a button the message it sits
on, updated); a reply may bring more messages, posted as follow-ups. Every message goes
out with ``allowed_mentions: {parse: []}``: whatever a name says, nobody is pinged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum

from diceledger.domain.json import JsonObject, JsonValue

MAX_CONTENT = 2000  # characters of a message's content
MAX_CUSTOM_ID = 100
MAX_LABEL = 80
MAX_ROWS = 5
MAX_BUTTONS_PER_ROW = 5
EPHEMERAL = 64  # message flag: only the person who asked sees it
ACTION_ROW = 1
BUTTON = 2


class ResponseType(IntEnum):
    """Discord's interaction response types that diceledger sends."""

    PONG = 1
    CHANNEL_MESSAGE_WITH_SOURCE = 4
    DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7


class ButtonStyle(IntEnum):
    """Discord's button styles that diceledger uses."""

    SECONDARY = 2
    SUCCESS = 3


@dataclass(frozen=True, slots=True)
class Button:
    """A button that sends ``custom_id`` back when clicked."""

    label: str
    custom_id: str
    style: ButtonStyle = ButtonStyle.SECONDARY

    def as_json(self) -> JsonObject:
        """Return the button as Discord's JSON."""
        return {
            "type": BUTTON,
            "style": int(self.style),
            "label": self.label[:MAX_LABEL],
            "custom_id": self.custom_id,
        }


@dataclass(frozen=True, slots=True)
class Message:
    """A message: its content, its buttons (rows of up to five), who may see it."""

    content: str
    rows: tuple[tuple[Button, ...], ...] = ()
    ephemeral: bool = False

    def as_json(self, with_flags: bool = True) -> JsonObject:
        """Return the message as Discord's JSON (flags cannot be changed by an edit)."""
        rows: list[JsonValue] = [
            {"type": ACTION_ROW, "components": [button.as_json() for button in row]}
            for row in self.rows
        ]
        document: JsonObject = {
            "content": self.content[:MAX_CONTENT],
            "allowed_mentions": {"parse": []},
            "components": rows,
        }
        if with_flags and self.ephemeral:
            document["flags"] = EPHEMERAL
        return document


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to one interaction: the first message, and messages that follow it.

    ``update`` replaces the message a clicked button sits on instead of posting a new one.
    """

    message: Message
    update: bool = False
    follow_ups: tuple[Message, ...] = ()

    def response(self) -> JsonObject:
        """Return the interaction response that carries the first message."""
        kind = ResponseType.CHANNEL_MESSAGE_WITH_SOURCE
        if self.update:
            kind = ResponseType.UPDATE_MESSAGE
        return {"type": int(kind), "data": self.message.as_json(with_flags=not self.update)}

    def stored(self) -> str:
        """Return the reply as kept for a redelivery (its follow-ups were already posted)."""
        message = self.message
        rows = [[[b.label, b.custom_id, int(b.style)] for b in row] for row in message.rows]
        document = {
            "update": self.update,
            "content": message.content,
            "ephemeral": message.ephemeral,
            "rows": rows,
        }
        return json.dumps(document, ensure_ascii=False)

    @classmethod
    def from_stored(cls, stored: str) -> Reply:
        """Return a kept reply, without follow-ups: a redelivery posts nothing twice."""
        document = json.loads(stored)
        rows = tuple(
            tuple(Button(label, custom_id, ButtonStyle(style)) for label, custom_id, style in row)
            for row in document["rows"]
        )
        message = Message(document["content"], rows, document["ephemeral"])
        return cls(message, document["update"])


def private(content: str) -> Reply:
    """Return a reply only the person who asked sees."""
    return Reply(Message(content, ephemeral=True))


def deferred(ephemeral: bool, component: bool) -> JsonObject:
    """Return the response that asks Discord to wait for the real answer."""
    if component:
        return {"type": int(ResponseType.DEFERRED_UPDATE_MESSAGE)}
    kind = int(ResponseType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE)
    return {"type": kind, "data": {"flags": EPHEMERAL}} if ephemeral else {"type": kind}
