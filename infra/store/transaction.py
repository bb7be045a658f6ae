"""One command, one transaction: every write a request makes commits together or not at all.

A request that must not half-happen (an idempotent POST: its events, their Merkle nodes and
signed checkpoint, and the answer kept for its retries) runs inside ``one_transaction``.
Every writer of the store (``writing``) then joins that transaction instead of opening its
own, so a crash at any moment leaves either all of the request's rows or none of them.
Outside one, ``writing`` is a transaction of its own, as before.

What must follow the commit (announcing the append, a best-effort snapshot, remembering a
signed head outside the database) is queued with ``after_commit``; what a rollback makes
wrong (a cached session state that folded the rolled-back events) with ``on_rollback``.
The current transaction is a context variable: one per thread or task, never shared.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from contextvars import ContextVar

from sqlalchemy.engine import Connection, Engine, RootTransaction

from diceledger.infra.store.database import translate_errors, write_connection

LOG = logging.getLogger(__name__)

Callback = Callable[[], object]


class Transaction:
    """The open transaction of one request: its connection, opened on the first write."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._stack = ExitStack()
        self._held = ExitStack()  # locks, released once the transaction has ended
        self._held_names: set[str] = set()
        self._connection: Connection | None = None
        self._begun: RootTransaction | None = None
        self._committed: list[Callback] = []
        self._rolled_back: list[Callback] = []

    def connection(self) -> Connection:
        """Return the transaction's connection, beginning it (the write lock on SQLite)."""
        if self._connection is None:
            with translate_errors(self.engine.url):
                connection = self._stack.enter_context(write_connection(self.engine))
                self._begun = connection.begin()
            self._connection = connection
        return self._connection

    def serves(self, engine: Engine) -> bool:
        """Tell whether writes on ``engine`` go to this transaction's database.

        Two engines on one database file or server (one URL) are one database: a writer
        of either joins, where two transactions would wait on each other's locks.
        """
        if engine is self.engine:
            return True
        in_memory = engine.url.database in (None, "", ":memory:")
        return not in_memory and engine.url == self.engine.url

    def hold(self, name: str, lock: Callable[[], AbstractContextManager[object]]) -> None:
        """Hold the lock ``name`` until the transaction has committed or rolled back.

        Taken once: a command retried within the transaction holds it already.
        """
        if name not in self._held_names:
            self._held.enter_context(lock())
            self._held_names.add(name)

    def after_commit(self, callback: Callback) -> None:
        self._committed.append(callback)

    def on_rollback(self, callback: Callback) -> None:
        self._rolled_back.append(callback)

    def _end(self, commit: bool) -> None:
        """Commit (or roll back), release the held locks, and run what waits on the outcome."""
        try:
            with self._held, self._stack, translate_errors(self.engine.url):
                if self._begun is not None:
                    if commit:
                        self._begun.commit()
                    else:
                        self._begun.rollback()
        except BaseException:
            _run_all(self._rolled_back)
            raise
        _run_all(self._committed if commit else self._rolled_back)


_CURRENT: ContextVar[Transaction | None] = ContextVar("diceledger_transaction", default=None)


@contextmanager
def one_transaction(engine: Engine) -> Iterator[Transaction]:
    """Run the block's writes on ``engine`` in one transaction, committed when it ends.

    An exception rolls everything back (and propagates); so does ``RollBack`` raised by
    the block, which is swallowed. Nested, the outer transaction is the one: the inner
    block's writes join it.
    """
    outer = _CURRENT.get()
    if outer is not None and outer.serves(engine):
        yield outer
        return
    transaction = Transaction(engine)
    token = _CURRENT.set(transaction)
    try:
        yield transaction
    except RollBack:
        _CURRENT.reset(token)
        transaction._end(commit=False)
        return
    except BaseException:
        _CURRENT.reset(token)
        transaction._end(commit=False)
        raise
    _CURRENT.reset(token)
    transaction._end(commit=True)


class RollBack(Exception):
    """Raised inside ``one_transaction`` to undo its writes without failing the caller."""


@contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """Yield a connection to write on: the current transaction's, else one of its own.

    Joining, the block's writes commit with the transaction. Alone, they commit when the
    block ends. Errors are translated either way.
    """
    current = _CURRENT.get()
    if current is not None and current.serves(engine):
        with translate_errors(engine.url):
            yield current.connection()
        return
    with (
        translate_errors(engine.url),
        write_connection(engine) as connection,
        connection.begin(),
    ):
        yield connection


def in_transaction(engine: Engine) -> bool:
    """Tell whether writes on ``engine`` join a request's transaction now."""
    current = _CURRENT.get()
    return current is not None and current.serves(engine)


def after_commit(callback: Callback) -> None:
    """Run ``callback`` once the current transaction commits; with none, at once."""
    current = _CURRENT.get()
    if current is None:
        callback()
    else:
        current.after_commit(callback)


def on_rollback(callback: Callback) -> None:
    """Run ``callback`` if the current transaction rolls back; with none, never."""
    current = _CURRENT.get()
    if current is not None:
        current.on_rollback(callback)


def _run_all(callbacks: list[Callback]) -> None:
    for callback in callbacks:
        try:
            callback()
        except Exception:  # one failed follow-up must not stop the others
            LOG.exception("a step after the transaction ended failed")
