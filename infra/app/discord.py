"""Tables on Discord: a channel plays a session, and each Discord user is one of its members.

Identity is the user id Discord signs into every interaction, never a name anyone types:
the name a person goes by in the log is chosen once, when they start a session or join
one with an invite, and every later interaction finds the member by that user id. What a
member may then do is decided by the session's own log, as for every other face.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from diceledger.domain.errors import (
    CommandRefusedError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
)
from diceledger.infra.app.access import DEFAULT_INVITE_TTL, AccessService, Credential, Invite
from diceledger.infra.app.application import Application
from diceledger.infra.app.results import SessionStartedResult
from diceledger.infra.discord.store import BindingStore
from diceledger.infra.store.port import Clock, utc_now

MAX_NAME = 100  # a member name chosen on Discord; Discord's own display names are shorter


@dataclass(frozen=True, slots=True)
class DiscordUser:
    """Who sent an interaction: the id Discord signs, and the name Discord shows."""

    user_id: str
    name: str  # only a default for the member name; never an identity


@dataclass(frozen=True, slots=True)
class Seat:
    """A Discord user at a channel's table: the session, the member they are, their role."""

    channel_id: str
    session_id: str
    user_id: str
    member: str
    is_gm: bool


class DiscordTables:
    """Bind channels to sessions and Discord users to members, over the application."""

    def __init__(
        self,
        app: Application,
        access: AccessService,
        store: BindingStore,
        clock: Clock = utc_now,
    ) -> None:
        self._app = app
        self._access = access
        self._store = store
        self._clock = clock

    def start(
        self, channel_id: str, user: DiscordUser, title: str, name: str | None = None
    ) -> SessionStartedResult:
        """Start a session played in this channel, the user its GM as ``name``."""
        name = member_name(user.name if name is None else name)
        previous = self._store.channel_session(channel_id)
        if previous is not None and not self._app.session(name, previous).ended:
            raise CommandRefusedError(
                f"this channel already plays session '{previous}'; it must end first"
            )
        started = self._app.start_session(name, title)
        now = self._clock()
        self._store.bind_channel(channel_id, started.session_id, user.user_id, now, previous)
        self._store.link(started.session_id, user.user_id, name, now)
        return started

    def session_of(self, channel_id: str) -> str:
        """Return the session the channel plays, or refuse."""
        session_id = self._store.channel_session(channel_id)
        if session_id is None:
            raise NotFoundError("this channel plays no session yet")
        return session_id

    def seat(self, channel_id: str, user_id: str) -> Seat:
        """Return who the user is at the channel's table, or refuse a stranger."""
        return self._seated(channel_id, self.session_of(channel_id), user_id)

    def seat_in(self, session_id: str, channel_id: str, user_id: str) -> Seat:
        """Return the user's seat in ``session_id``, which this channel must be playing."""
        if self._store.channel_session(channel_id) != session_id:
            raise NotFoundError(f"this channel does not play session '{session_id}'")
        return self._seated(channel_id, session_id, user_id)

    def invite(self, seat: Seat, ttl: timedelta = DEFAULT_INVITE_TTL) -> Invite:
        """Create a single-use invite to the seat's session (GM only)."""
        # The Discord user stands where a token would: the access rules are the same.
        credential = Credential(f"discord:{seat.user_id}", seat.session_id, seat.member)
        return self._access.invite(credential, ttl)

    def join(
        self,
        channel_id: str,
        user: DiscordUser,
        code: str,
        name: str | None = None,
        client_seed: str = "",
    ) -> Seat:
        """Join the channel's session with an invite, as ``name`` or the Discord name.

        ``client_seed`` is the player's own entropy, mixed into every die they roll.
        """
        session_id = self.session_of(channel_id)
        linked = self._store.member(session_id, user.user_id)
        if linked is not None:
            raise CommandRefusedError(f"you already play {linked} in session '{session_id}'")
        chosen = member_name(user.name if name is None else name)
        joined = self._access.admit(session_id, code, chosen, client_seed)
        self._store.link(session_id, user.user_id, chosen, self._clock())
        return Seat(channel_id, session_id, user.user_id, chosen, joined.member.is_gm)

    def _seated(self, channel_id: str, session_id: str, user_id: str) -> Seat:
        member = self._store.member(session_id, user_id)
        if member is None:
            raise PermissionDeniedError(
                f"your Discord account is not a member of session '{session_id}'; "
                "join it with an invite from its GM"
            )
        is_gm = self._app.members(session_id).get(member) == "gm"
        return Seat(channel_id, session_id, user_id, member, is_gm)


def member_name(name: str) -> str:
    """Return a member name chosen on Discord, trimmed, or refuse one that cannot be shown."""
    chosen = " ".join(name.split())
    if not chosen or len(chosen) > MAX_NAME or not chosen.isprintable():
        raise InvalidInputError(f"a name needs 1 to {MAX_NAME} printable characters")
    return chosen
