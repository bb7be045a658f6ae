"""Keep member tokens, invites and idempotent answers in the store's database."""

from __future__ import annotations

import functools
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from diceledger.infra.access.schema import idempotent_requests, invites, member_tokens
from diceledger.infra.store.database import one_connection, read_connection, translate_errors
from diceledger.infra.store.prepared import Prepared
from diceledger.infra.store.transaction import Transaction, one_transaction, writing


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """What the server knows of a token: whose it is, in which session, and if it is revoked."""

    token_id: str
    session_id: str
    member: str
    revoked: bool
    signed_out: bool


@dataclass(frozen=True, slots=True)
class DeviceRecord:
    """A member's live token, as a device they are signed in on."""

    token_id: str
    signed_in_at: datetime


@dataclass(frozen=True, slots=True)
class InviteRecord:
    """A live invite (or sign-in code): the session it opens, and who made it."""

    session_id: str
    created_by: str


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    """An idempotent request seen before: its fingerprint and, once answered, its answer."""

    fingerprint: str
    status: int | None
    body: str | None


class AccessStore:
    """Tokens, invites and idempotent answers, in tables beside the event log."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    # -- tokens -----------------------------------------------------------------------------

    def add_token(
        self, token_id: str, token_hash: str, session_id: str, member: str, now: datetime
    ) -> None:
        """Record a new token (by its hash) for a member of a session."""
        row = {
            "token_id": token_id,
            "token_hash": token_hash,
            "session_id": session_id,
            "member": member,
            "created_at": now,
        }
        with self._writing() as connection:
            connection.execute(member_tokens.insert(), row)

    def find_token(self, token_hash: str) -> TokenRecord | None:
        """Return the token with this hash, or None."""
        with translate_errors(self._engine.url), read_connection(self._engine) as connection:
            row = _TOKEN_BY_HASH.run(connection, {"token_hash": token_hash}).first()
        if row is None:
            return None
        revoked, signed_out = row.revoked_at is not None, row.signed_out_at is not None
        return TokenRecord(row.token_id, row.session_id, row.member, revoked, signed_out)

    def lock_devices(self, session_id: str, member: str) -> None:
        """Lock a member's live tokens until the transaction ends (PostgreSQL).

        Two sign-ins at once then count each other's new token: the second waits for the
        first, and neither leaves the member more live tokens than they may hold.
        """
        query = sa.select(member_tokens.c.token_id).where(self._live(session_id, member))
        with self._writing() as connection:
            connection.execute(query.with_for_update())

    def keep_newest(self, session_id: str, member: str, most: int, now: datetime) -> int:
        """Sign out a member's live tokens beyond their ``most`` newest; return how many."""
        newest = (
            sa.select(member_tokens.c.token_id)
            .where(self._live(session_id, member))
            .order_by(member_tokens.c.created_at.desc(), member_tokens.c.token_id.desc())
            .limit(most)
        )
        query = (
            member_tokens.update()
            .where(self._live(session_id, member))
            .where(member_tokens.c.token_id.not_in(newest.scalar_subquery()))
            .values(signed_out_at=now)
        )
        with self._writing() as connection:
            return connection.execute(query).rowcount

    def devices(self, session_id: str, member: str) -> list[DeviceRecord]:
        """Return a member's live tokens, oldest first."""
        query = (
            sa.select(member_tokens.c.token_id, member_tokens.c.created_at)
            .where(self._live(session_id, member))
            .order_by(member_tokens.c.created_at, member_tokens.c.token_id)
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            rows = connection.execute(query).all()
        # SQLite gives the moment back without its zone; it was written in UTC.
        return [
            DeviceRecord(row.token_id, row.created_at.replace(tzinfo=row.created_at.tzinfo or UTC))
            for row in rows
        ]

    def sign_out(self, session_id: str, member: str, token_id: str, now: datetime) -> bool:
        """Sign out one live token of a member; tell whether there was one."""
        query = (
            member_tokens.update()
            .where(self._live(session_id, member))
            .where(member_tokens.c.token_id == token_id)
            .values(signed_out_at=now)
        )
        with self._writing() as connection:
            return connection.execute(query).rowcount == 1

    @staticmethod
    def _live(session_id: str, member: str) -> sa.ColumnElement[bool]:
        return sa.and_(
            member_tokens.c.session_id == session_id,
            member_tokens.c.member == member,
            member_tokens.c.revoked_at.is_(None),
            member_tokens.c.signed_out_at.is_(None),
        )

    def revoke_member(self, session_id: str, member: str, now: datetime) -> int:
        """Revoke every live token of a member; return how many."""
        query = (
            member_tokens.update()
            .where(member_tokens.c.session_id == session_id)
            .where(member_tokens.c.member == member)
            .where(member_tokens.c.revoked_at.is_(None))
            .values(revoked_at=now)
        )
        with self._writing() as connection:
            return connection.execute(query).rowcount

    def was_revoked(self, session_id: str, member: str) -> bool:
        """Tell whether a GM ever revoked a token of this member."""
        query = (
            sa.select(member_tokens.c.token_id)
            .where(member_tokens.c.session_id == session_id)
            .where(member_tokens.c.member == member)
            .where(member_tokens.c.revoked_at.is_not(None))
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            return connection.execute(query.limit(1)).first() is not None

    def live_tokens(self, session_id: str) -> dict[str, int]:
        """Return how many live tokens each member of a session holds."""
        query = (
            sa.select(member_tokens.c.member, sa.func.count())
            .where(member_tokens.c.session_id == session_id)
            .where(member_tokens.c.revoked_at.is_(None))
            .where(member_tokens.c.signed_out_at.is_(None))
            .group_by(member_tokens.c.member)
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            return {member: count for member, count in connection.execute(query)}

    # -- invites ----------------------------------------------------------------------------

    def add_invite(
        self, code_hash: str, session_id: str, created_by: str, now: datetime, expires: datetime
    ) -> None:
        """Record a new invite code (by its hash)."""
        row = {
            "code_hash": code_hash,
            "session_id": session_id,
            "created_by": created_by,
            "created_at": now,
            "expires_at": expires,
        }
        with self._writing() as connection:
            connection.execute(invites.insert(), row)

    def claim_invite(self, code_hash: str, session_id: str, name: str, now: datetime) -> bool:
        """Mark an unexpired, unredeemed invite of the session redeemed; tell if it was.

        An invite whose maker a GM revoked is claimed by no one: it died with them.
        """
        maker_revoked = (
            sa.select(member_tokens.c.token_id)
            .where(member_tokens.c.session_id == invites.c.session_id)
            .where(member_tokens.c.member == invites.c.created_by)
            .where(member_tokens.c.revoked_at.is_not(None))
            .exists()
        )
        query = (
            invites.update()
            .where(invites.c.code_hash == code_hash)
            .where(invites.c.session_id == session_id)
            .where(invites.c.redeemed_at.is_(None))
            .where(invites.c.expires_at > now)
            .where(~maker_revoked)
            .values(redeemed_at=now, redeemed_by=name)
        )
        with self._writing() as connection:
            return connection.execute(query).rowcount == 1

    def redeemer(self, code_hash: str, session_id: str, now: datetime) -> str | None:
        """Return who redeemed an invite of the session that has not expired yet, or None."""
        query = (
            sa.select(invites.c.redeemed_by)
            .where(invites.c.code_hash == code_hash)
            .where(invites.c.session_id == session_id)
            .where(invites.c.expires_at > now)
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            name: str | None = connection.execute(query).scalar()
        return name

    def code_session(self, code_hash: str, now: datetime) -> str | None:
        """Return the session of an unexpired invite, redeemed or not, or None."""
        query = (
            sa.select(invites.c.session_id)
            .where(invites.c.code_hash == code_hash)
            .where(invites.c.expires_at > now)
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            session_id: str | None = connection.execute(query).scalar()
        return session_id

    def invite_session(self, code_hash: str, now: datetime) -> InviteRecord | None:
        """Return the session and maker of an unexpired, unredeemed invite, or None."""
        query = (
            sa.select(invites.c.session_id, invites.c.created_by)
            .where(invites.c.code_hash == code_hash)
            .where(invites.c.redeemed_at.is_(None))
            .where(invites.c.expires_at > now)
        )
        with translate_errors(self._engine.url), self._engine.connect() as connection:
            row = connection.execute(query).first()
        return None if row is None else InviteRecord(row.session_id, row.created_by)

    def release_invite(self, code_hash: str) -> None:
        """Undo a claim whose join was refused, so the invite can still be used."""
        query = (
            invites.update()
            .where(invites.c.code_hash == code_hash)
            .values(redeemed_at=None, redeemed_by=None)
        )
        with self._writing() as connection:
            connection.execute(query)

    # -- idempotent requests ----------------------------------------------------------------

    def find_request(self, scope: str, key: str) -> StoredAnswer | None:
        """Return the answer kept for (scope, key), or None if none was."""
        with translate_errors(self._engine.url), read_connection(self._engine) as connection:
            found = _ANSWER_BY_KEY.run(connection, {"scope": scope, "key": key}).first()
        return None if found is None else StoredAnswer(found.fingerprint, found.status, found.body)

    def keep_answer(
        self, scope: str, key: str, fingerprint: str, status: int, body: str, now: datetime
    ) -> bool:
        """Record a request's answer; False when (scope, key) holds one already.

        Written in the request's transaction, so the answer exists exactly when what the
        request did was committed. A concurrent first attempt of the same key that
        committed first makes this insert do nothing (on PostgreSQL after waiting for it).
        """
        row = {
            "scope": scope,
            "idempotency_key": key,
            "fingerprint": fingerprint,
            "status": status,
            "body": body,
            "created_at": now,
        }
        with self._writing() as connection:
            return _insert_if_new(connection.dialect.name).run(connection, row).first() is not None

    def transaction(self) -> AbstractContextManager[Transaction]:
        """Open one transaction for a request: every write on this store's engine joins it."""
        return one_transaction(self._engine)

    def one_connection(self) -> AbstractContextManager[None]:
        """Let a request's reads and its transaction share one pooled connection."""
        return one_connection(self._engine)

    def _writing(self) -> AbstractContextManager[sa.Connection]:
        return writing(self._engine)  # the request's transaction, if one is open


# Every request with a key reads its token and its key, and a roll keeps its answer: the
# three run as prepared statements. The token's end times are read only as set or unset,
# so they come back as the driver has them (text on SQLite), not as datetimes.
_TOKEN_BY_HASH = Prepared(
    sa.select(
        member_tokens.c.token_id,
        member_tokens.c.session_id,
        member_tokens.c.member,
        sa.type_coerce(member_tokens.c.revoked_at, sa.String).label("revoked_at"),
        sa.type_coerce(member_tokens.c.signed_out_at, sa.String).label("signed_out_at"),
    ).where(member_tokens.c.token_hash == sa.bindparam("token_hash"))
)
_ANSWER_BY_KEY = Prepared(
    sa.select(
        idempotent_requests.c.fingerprint, idempotent_requests.c.status, idempotent_requests.c.body
    ).where(
        idempotent_requests.c.scope == sa.bindparam("scope"),
        idempotent_requests.c.idempotency_key == sa.bindparam("key"),
    )
)


@functools.cache
def _insert_if_new(dialect: str) -> Prepared:
    """Return the INSERT of an answer that does nothing where (scope, key) holds one, and
    returns a row only when it inserted.

    ON CONFLICT rather than a savepoint around a failing insert: one statement, where the
    savepoint cost two more round trips on every request with a key. The dialect is
    imported here, so a SQLite process never loads PostgreSQL's.
    """
    key, inserted = ["scope", "idempotency_key"], idempotent_requests.c.scope
    values: dict[str, Any] = {c.name: sa.bindparam(c.name) for c in idempotent_requests.c}
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        pg_insert = postgresql.insert(idempotent_requests).values(values)
        return Prepared(pg_insert.on_conflict_do_nothing(index_elements=key).returning(inserted))
    from sqlalchemy.dialects import sqlite

    lite_insert = sqlite.insert(idempotent_requests).values(values)
    return Prepared(lite_insert.on_conflict_do_nothing(index_elements=key).returning(inserted))
