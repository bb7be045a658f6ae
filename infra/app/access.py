"""Access on the server: who a bearer token is, invites, joining, and the GM's member list.

The acting member comes from a credential only. A token names one member of one session;
the session's own log says what that member may do (a GM, a co-GM, a player).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from diceledger.domain.errors import (
    DiceledgerError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    UnauthenticatedError,
    unknown_session,
)
from diceledger.domain.session import commands as cmd
from diceledger.infra.access.secrets import (
    INVITE_PREFIX,
    SIGN_IN_PREFIX,
    TOKEN_PREFIX,
    looks_like,
    new_invite_code,
    new_sign_in_code,
    new_token,
    secret_hash,
)
from diceledger.infra.access.store import AccessStore, InviteRecord
from diceledger.infra.app.application import Application
from diceledger.infra.app.idempotency import Answer, IdempotentRequests
from diceledger.infra.app.results import MemberResult, SessionStartedResult
from diceledger.infra.store.port import Clock, utc_now

DEFAULT_INVITE_TTL = timedelta(hours=24)
MAX_INVITE_TTL = timedelta(days=7)
SIGN_IN_TTL = timedelta(hours=24)
MOST_DEVICES = 5  # live tokens per member: one more signs out the oldest
UNUSABLE_CODE = "the invite code is unknown, used or expired"
UNUSABLE_SIGN_IN = "the sign-in code is unknown, used or expired"


@dataclass(frozen=True, slots=True)
class Credential:
    """An authenticated member: the token's id (never the token), session and name."""

    token_id: str
    session_id: str
    member: str


@dataclass(frozen=True, slots=True)
class OpenedSession:
    """A new session and its GM's token, shown once."""

    started: SessionStartedResult
    gm_token: str


@dataclass(frozen=True, slots=True)
class Invite:
    """A single-use invite code, shown once, and when it expires."""

    session_id: str
    code: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Joined:
    """A member who joined by invite, and their token, shown once."""

    session_id: str
    name: str
    role: str
    token: str
    checkpoint: str | None = None  # the signed checkpoint after the join


@dataclass(frozen=True, slots=True)
class Device:
    """A device a member is signed in on (one live token), and whether it is the caller's."""

    device_id: str
    signed_in_at: datetime
    this_device: bool


@dataclass(frozen=True, slots=True)
class MemberAccess:
    """A member as the GM manages them: role and how many live tokens they hold."""

    name: str
    role: str
    live_tokens: int


class AccessService:
    """Tokens, invites and membership for the HTTP face, over the application."""

    def __init__(
        self,
        app: Application,
        store: AccessStore,
        requests: IdempotentRequests,
        clock: Clock = utc_now,
    ) -> None:
        self._app = app
        self._store = store
        self._requests = requests
        self._clock = clock

    def open_session(
        self, title: str, gm_name: str, manual_dice_allowed: bool = True
    ) -> OpenedSession:
        """Start a session whose creator is its GM; return the GM's token."""
        started = self._app.start_session(gm_name, title, manual_dice_allowed)
        return OpenedSession(started, self._issue(started.session_id, gm_name))

    def open_in_campaign(
        self, credential: Credential, campaign_id: str, title: str, manual_dice_allowed: bool = True
    ) -> OpenedSession:
        """Start a session in the credential's campaign (its GM's); return the GM's token.

        The session, its place in the campaign and the token commit together.
        """
        with self._store.transaction():
            started = self._app.campaigns.start_session(
                credential.member, campaign_id, title, manual_dice_allowed, credential.session_id
            )
            return OpenedSession(started, self._issue(started.session_id, credential.member))

    def authenticate(self, token: str | None) -> Credential:
        """Return the member a bearer token stands for, or refuse it."""
        if token is None:
            raise UnauthenticatedError("this needs a member token: Authorization: Bearer dlt_...")
        record = None
        if looks_like(token, TOKEN_PREFIX):
            record = self._store.find_token(secret_hash(token))
        if record is None:
            raise UnauthenticatedError("the token is not one this server issued")
        if record.revoked:
            raise UnauthenticatedError("the token was revoked by a GM of its session")
        if record.signed_out:
            raise UnauthenticatedError(
                "this device was signed out; sign in again with a sign-in link"
            )
        return Credential(record.token_id, record.session_id, record.member)

    def in_session(self, credential: Credential, session_id: str) -> Credential:
        """Refuse a credential of another session as if the session did not exist."""
        if credential.session_id != session_id:
            raise unknown_session(session_id)
        return credential

    def invite(self, credential: Credential, ttl: timedelta = DEFAULT_INVITE_TTL) -> Invite:
        """Create a single-use invite to the credential's session (GM only)."""
        self._require_gm(credential, "invite players")
        if not timedelta(minutes=1) <= ttl <= MAX_INVITE_TTL:
            raise InvalidInputError("an invite lives between one minute and seven days")
        return self._new_code(new_invite_code(), credential, ttl)

    def _new_code(self, code: str, credential: Credential, ttl: timedelta) -> Invite:
        now = self._clock()
        expires = now + ttl
        self._store.add_invite(
            secret_hash(code), credential.session_id, credential.member, now, expires
        )
        return Invite(credential.session_id, code, expires)

    def invite_session(self, code: str) -> str:
        """Return the session a live invite opens, or refuse the code.

        The code alone names its session (its hash is the key), so a link need carry
        nothing else. A sign-in code is no invite: it opens no join form.
        """
        found = self._live_code(code, INVITE_PREFIX)
        if found is None:
            raise PermissionDeniedError(UNUSABLE_CODE)
        return found.session_id

    def joining_session(self, code: str, retry_key: str | None) -> str:
        """Return the session an invite joins: a live one's, or, for a request that carries
        a retry key, the session of the unexpired invite it may already have redeemed (its
        answer lost on the way); ``join`` then decides whether that retry is the same one.
        """
        found = self._live_code(code, INVITE_PREFIX)
        if found is not None:
            return found.session_id
        if retry_key is not None and looks_like(code, INVITE_PREFIX):
            session_id = self._store.code_session(secret_hash(code), self._clock())
            if session_id is not None:
                return session_id
        raise PermissionDeniedError(UNUSABLE_CODE)

    def sign_in_session(self, code: str) -> str:
        """Return the session a live sign-in code signs in to, or refuse the code."""
        found = self._live_code(code, SIGN_IN_PREFIX)
        if found is None:
            raise PermissionDeniedError(UNUSABLE_SIGN_IN)
        return found.session_id

    def _live_code(self, code: str, kind: str) -> InviteRecord | None:
        """Return the record of an unspent, unexpired code of ``kind``, or None.

        A code dies with its maker's tokens: a member the GM revoked must not come back
        through a sign-in code, nor a revoked co-GM let others in through an invite, made
        while they still could (claiming one checks the same, in the same statement).
        """
        if not looks_like(code, kind):
            return None
        found = self._store.invite_session(secret_hash(code), self._clock())
        if found is None or self._store.was_revoked(found.session_id, found.created_by):
            return None
        return found

    def sign_in_code(self, credential: Credential, ttl: timedelta = SIGN_IN_TTL) -> Invite:
        """Create a single-use code that signs the credential's member in on another browser.

        It is kept in the invites table with the member as its maker; its prefix (part of
        what is hashed) tells it from an invite, so neither can be redeemed as the other.
        """
        return self._new_code(new_sign_in_code(), credential, ttl)

    def sign_in_code_for(
        self, credential: Credential, member: str, ttl: timedelta = SIGN_IN_TTL
    ) -> Invite:
        """Create a single-use code that signs ``member`` in (GM only): a way back in.

        The code is kept as the member's own, so it dies with their tokens like one they
        made; a member the GM revoked gets none.
        """
        self._require_gm(credential, "make a sign-in link for a member")
        if member not in self._app.members(credential.session_id):
            raise unknown_member(member, credential.session_id)
        if self._store.was_revoked(credential.session_id, member):
            raise PermissionDeniedError(f"{member}'s tokens were revoked: no sign-in link")
        as_member = Credential(credential.token_id, credential.session_id, member)
        return self._new_code(new_sign_in_code(), as_member, ttl)

    def devices(self, credential: Credential) -> list[Device]:
        """List the devices the caller's member is signed in on, oldest first."""
        return [
            Device(found.token_id, found.signed_in_at, found.token_id == credential.token_id)
            for found in self._store.devices(credential.session_id, credential.member)
        ]

    def sign_out(self, credential: Credential, device_id: str) -> None:
        """Sign out one of the caller's own devices (this one too); refuse anyone else's."""
        now = self._clock()
        if not self._store.sign_out(credential.session_id, credential.member, device_id, now):
            raise NotFoundError(f"you are signed in on no device '{device_id}'")

    def as_owner(self, session_id: str, member: str) -> Credential:
        """Return a credential for any member, for the store's owner alone.

        Whoever can open the database may act as anyone (the CLI's ``--as``); the demo
        server uses this to hand its visitors sign-in links. No route calls it.
        """
        if member not in self._app.members(session_id):
            raise unknown_member(member, session_id)
        return Credential("owner", session_id, member)

    def sign_in(self, code: str) -> Joined:
        """Redeem a sign-in code: a fresh token for the member who made it."""
        found = self._live_code(code, SIGN_IN_PREFIX)
        if found is None or not self._store.claim_invite(
            secret_hash(code), found.session_id, found.created_by, self._clock()
        ):
            raise PermissionDeniedError(UNUSABLE_SIGN_IN)
        session_id, name = found.session_id, found.created_by
        role = self._app.members(session_id)[name]
        return Joined(session_id, name, role, self._issue(session_id, name))

    def join(
        self,
        session_id: str,
        code: str,
        name: str,
        client_seed: str = "",
        retry_key: str | None = None,
    ) -> Joined:
        """Redeem an invite: join as a player named ``name`` and receive a token.

        With a ``retry_key``, the same request sent again (same code, same key) answers
        with a fresh token for the member the first attempt made: its token may have been
        lost on the way, and no answer holding a token is ever stored. Only while the
        invite has not expired, and never once a GM has revoked the member's tokens: a
        retry is no way back in.
        """
        code_hash = secret_hash(code) if looks_like(code, INVITE_PREFIX) else ""
        scope = "join:" + (code_hash or "malformed")
        if retry_key is None:
            with self._store.transaction():  # the invite, the member and its token: or none
                return self._redeem(session_id, code_hash, name, client_seed)
        made: list[Joined] = []

        def redeem() -> Answer:
            joined = self._redeem(session_id, code_hash, name, client_seed)
            made.append(joined)
            return Answer(201, joined.name)

        request = f"{session_id}\n{name}\n{client_seed}".encode()
        _, replayed = self._requests.run(scope, retry_key, request, redeem)
        if replayed:
            return self._rejoined(session_id, code_hash, name)
        return made[0]

    def _redeem(self, session_id: str, code_hash: str, name: str, client_seed: str) -> Joined:
        joined = self._admitted(session_id, code_hash, name, client_seed)
        member = joined.member
        token = self._issue(session_id, member.name)
        return Joined(session_id, member.name, member.role, token, joined.checkpoint)

    def admit(self, session_id: str, code: str, name: str, client_seed: str = "") -> MemberResult:
        """Redeem an invite for a member who needs no token (one identified elsewhere)."""
        code_hash = secret_hash(code) if looks_like(code, INVITE_PREFIX) else ""
        return self._admitted(session_id, code_hash, name, client_seed)

    def _admitted(
        self, session_id: str, code_hash: str, name: str, client_seed: str
    ) -> MemberResult:
        if not code_hash or not self._store.claim_invite(
            code_hash, session_id, name, self._clock()
        ):
            raise PermissionDeniedError(UNUSABLE_CODE)
        try:
            return self._app.join(name, session_id, cmd.JoinSession(name, client_seed))
        except DiceledgerError:
            self._store.release_invite(code_hash)  # a refused join leaves the invite usable
            raise

    def _rejoined(self, session_id: str, code_hash: str, name: str) -> Joined:
        redeemed_by = self._store.redeemer(code_hash, session_id, self._clock())
        if redeemed_by != name or self._store.was_revoked(session_id, name):
            raise PermissionDeniedError("the invite code is unknown, used or expired")
        role = self._app.members(session_id)[name]
        latest = self._app.proofs.latest(session_id)  # nothing new was signed: the latest
        return Joined(session_id, name, role, self._issue(session_id, name), latest)

    def members(self, credential: Credential) -> list[MemberAccess]:
        """List the session's members with their live tokens (GM only)."""
        self._require_gm(credential, "manage members")
        tokens = self._store.live_tokens(credential.session_id)
        roles = self._app.members(credential.session_id)
        return [MemberAccess(name, role, tokens.get(name, 0)) for name, role in roles.items()]

    def revoke(self, credential: Credential, member: str) -> int:
        """Revoke every token of a member (GM only); return how many were live."""
        self._require_gm(credential, "revoke a member's token")
        if member not in self._app.members(credential.session_id):
            raise unknown_member(member, credential.session_id)
        return self._store.revoke_member(credential.session_id, member, self._clock())

    def make_co_gm(self, credential: Credential, member: str) -> MemberResult:
        """Make a member a co-GM (GM only).

        Only a member can be promoted: the session's rules would add a stranger as a new
        GM, a member no one holds a token for.
        """
        self._require_gm(credential, "make a co-GM")
        if member not in self._app.members(credential.session_id):
            raise unknown_member(member, credential.session_id)
        command = cmd.JoinSession(member, as_gm=True)
        return self._app.join(credential.member, credential.session_id, command)

    def _require_gm(self, credential: Credential, action: str) -> None:
        if self._app.members(credential.session_id).get(credential.member) != "gm":
            raise PermissionDeniedError(f"only a GM may {action}")

    def _issue(self, session_id: str, member: str) -> str:
        token = new_token()
        token_id = str(uuid.uuid4())
        now = self._clock()
        with self._store.transaction():
            self._store.lock_devices(session_id, member)
            self._store.add_token(token_id, secret_hash(token), session_id, member, now)
            self._store.keep_newest(session_id, member, MOST_DEVICES, now)
        return token


def unknown_member(member: str, session_id: str) -> NotFoundError:
    """Return the error for a name that is no member of the session."""
    return NotFoundError(f"{member} is not a member of session '{session_id}'")
