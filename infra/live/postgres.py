"""Appends carried between the worker processes of one server by PostgreSQL LISTEN/NOTIFY.

After an append, the worker that made it sends ``NOTIFY`` on one channel with a payload of
only the session id and its new version (never event data: the streams read the store).
Each worker keeps one connection that LISTENs, in a thread of its own, and passes what it
hears to its streams. When that connection drops, the listener reconnects and wakes every
stream, since announcements sent in between were lost; the streams' own re-reads at each
heartbeat bound the delay if anything else goes missing.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable

import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from diceledger.infra.live.updates import Heard
from diceledger.infra.store.transaction import in_transaction, writing

LOG = logging.getLogger("diceledger.live")

CHANNEL = "diceledger_appended"
POLL_SECONDS = 0.5  # how often the listener looks up from waiting to see if it must stop
RETRY_SECONDS = (0.5, 1.0, 2.0, 5.0)  # waits between attempts to reconnect the listener


def payload(session_id: str, version: int) -> str:
    """Return the notification's payload: the session id and its version, nothing else."""
    return json.dumps({"session_id": session_id, "version": version}, separators=(",", ":"))


def parse_payload(text: str) -> tuple[str, int] | None:
    """Return the session id and version of a payload, or None if it is not one of ours."""
    try:
        document = json.loads(text)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    session_id, version = document.get("session_id"), document.get("version")
    if not isinstance(session_id, str) or not isinstance(version, int):
        return None
    return session_id, version


class PostgresChannel:
    """Publish appends with NOTIFY; hear every worker's with one LISTEN connection."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._conninfo = engine.url.set(drivername="postgresql").render_as_string(
            hide_password=False
        )
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def publish(self, session_id: str, version: int) -> None:
        """NOTIFY every worker, in the append's transaction if one is open (``writing``).

        NOTIFY is sent at commit, so joining costs one statement and no transaction of its
        own. Outside one, a failure is logged, never raised (the append is done).
        """
        notify = sa.text("SELECT pg_notify(:channel, :payload)")
        parameters = {"channel": CHANNEL, "payload": payload(session_id, version)}
        if in_transaction(self._engine):
            with writing(self._engine) as connection:
                connection.execute(notify, parameters)
            return
        try:
            with self._engine.connect() as connection:
                connection.execute(notify, parameters)
                connection.commit()
        except sa.exc.SQLAlchemyError as error:
            # The streams of other workers see the event at their next heartbeat instead.
            LOG.warning("could not announce an append to the other workers: %s", _line(error))

    def start(self, heard: Heard, missed: Callable[[], None]) -> None:
        """Start the listener thread."""
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._listen, args=(heard, missed), name="diceledger-listen", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop the listener thread (it looks up every POLL_SECONDS)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=POLL_SECONDS * 4 + 5)
            self._thread = None

    def _listen(self, heard: Heard, missed: Callable[[], None]) -> None:
        failures = 0
        while not self._stopping.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    if failures:
                        LOG.info("listening for other workers' appends again")
                    failures = 0
                    missed()  # whatever was announced before this LISTEN went unheard
                    self._hear(conn, heard)
            except psycopg.Error as error:
                wait = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                failures += 1
                LOG.warning("lost the connection that hears other workers: %s", _line(error))
                self._stopping.wait(wait)

    def _hear(self, conn: psycopg.Connection[tuple[object, ...]], heard: Heard) -> None:
        while not self._stopping.is_set():
            for note in conn.notifies(timeout=POLL_SECONDS):
                parsed = parse_payload(note.payload)
                if parsed is not None:
                    heard(*parsed)


def _line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
