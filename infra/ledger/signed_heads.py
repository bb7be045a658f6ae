"""The latest tree the server signed for each session, kept beside its key, not in the database.

Someone who can rewrite the database can cut a session's last rolls together with the
ledger rows above them; the database then holds a smaller tree that the ledger would
happily grow again into a second, different root for a size it signed already: a fork.
This file remembers what was signed where that person cannot rewrite it (with the key):
one line per signed tree, appended after the transaction that recorded it committed,
never rewritten. Before signing, the ledger checks the tree it is about to
grow still holds the remembered head (``check``); a tree that does not is refused.

Order: the database commits first, the head is appended after. A crash in between leaves
the file one head behind the database, which the check accepts when the database's tree
still holds the older remembered head (so no session is ever locked by a crash); only the
last head can be lost that way. The reverse order would lock a session whenever a
transaction rolled back after its head was written.

Durability: a line is written before the roll is answered, so a crash of the process
loses nothing; it is fsynced by a background thread right after, one fsync for all the
lines written meanwhile, so a roll waits for one durable commit (the database's), not
two. A power loss can thus lose the heads of the last few milliseconds, which the check
accepts as it accepts the crash above.

Lines are ``<size> TAB <root hex> TAB <key id> TAB <session id>`` (a session id holds no
tab). A server reads only the lines of keys it signs or signed with (its keyring's), so a
demo or a test with a throw-away key of its own never meets another key's sessions. Several
server processes on one host share the file: appends take an exclusive ``flock``, reads a
shared one, and each process reads only the lines added since its last read.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from diceledger.domain.errors import KeyFileError

LOG = logging.getLogger(__name__)

HEADS_FILE = "signed-heads"
ENV_VAR = "DICELEDGER_SIGNED_HEADS"


@dataclass(frozen=True, slots=True)
class Head:
    """A signed tree: how many events it holds and its root."""

    size: int
    root: bytes

    def __str__(self) -> str:
        return f"{self.size} events, root {self.root.hex()}"


def heads_path(key_file: Path) -> Path:
    """Return the heads file: DICELEDGER_SIGNED_HEADS, else ``signed-heads`` beside the key."""
    named = os.environ.get(ENV_VAR)
    return Path(named).expanduser() if named else key_file.with_name(HEADS_FILE)


class SignedHeads:
    """Read and append the heads file (see the module doc).

    ``signers`` returns the key ids (hex) whose heads count: asked once, on first use.
    """

    def __init__(self, path: Path, signers: Callable[[], Collection[str]]) -> None:
        self.path = path
        self._signers = signers
        self._ours: frozenset[str] | None = None
        self._latest: dict[str, Head] = {}
        self._read_to = 0  # the offset up to which this process has read the file
        self._guard = threading.Lock()

    @property
    def source(self) -> str:
        """Name the file in a verify's finding."""
        return f"the heads file {self.path}"

    def latest(self, stream_id: str) -> Head | None:
        """Return the largest signed tree remembered for the session, or None."""
        with self._guard:
            if self._grown():
                with self._locked(fcntl.LOCK_SH) as file:
                    if file is not None:
                        self._catch_up(file)
            return self._latest.get(stream_id)

    def _grown(self) -> bool:
        """Tell whether the file may hold lines this process has not read (it only grows)."""
        try:
            return self.path.stat().st_size != self._read_to
        except OSError:
            return True  # missing or unreadable: reading it says which

    def remember(self, stream_id: str, head: Head, key_id: str) -> None:
        """Append ``head`` signed by ``key_id``, unless a tree as large is kept (fsynced
        in the background, module doc)."""
        with self._guard, self._locked(fcntl.LOCK_EX, create=True) as file:
            assert file is not None
            self._catch_up(file)
            known = self._latest.get(stream_id)
            if known is not None and known.size >= head.size:
                return
            file.seek(0, os.SEEK_END)
            if file.tell() and not self._ends_with_newline(file):
                file.write(b"\n")  # a line cut short by a crash stays apart, unread
            file.write(f"{head.size}\t{head.root.hex()}\t{key_id}\t{stream_id}\n".encode())
            file.flush()
            self._latest[stream_id] = head
            self._read_to = file.tell()
        _SYNCER.sync_soon(self.path)

    def _catch_up(self, file: IO[bytes]) -> None:
        file.seek(self._read_to)
        added = file.read()
        complete = added[: added.rfind(b"\n") + 1]  # a line still being written waits
        for line in complete.splitlines():
            self._take(line)
        self._read_to += len(complete)

    def _take(self, line: bytes) -> None:
        try:
            size_text, root_text, key_id, stream_id = line.decode("utf-8").split("\t", 3)
            head = Head(int(size_text), bytes.fromhex(root_text))
        except (UnicodeDecodeError, ValueError):
            LOG.warning("%s: skipping a malformed line", self.path)
            return
        if self._ours is None:
            self._ours = frozenset(self._signers())
        if key_id not in self._ours:
            return  # another key's session: not this server's to guard
        known = self._latest.get(stream_id)
        if known is None or head.size > known.size:
            self._latest[stream_id] = head

    @staticmethod
    def _ends_with_newline(file: IO[bytes]) -> bool:
        file.seek(-1, os.SEEK_END)
        last = file.read(1)
        file.seek(0, os.SEEK_END)
        return last == b"\n"

    @contextmanager
    def _locked(self, mode: int, create: bool = False) -> Iterator[IO[bytes] | None]:
        try:
            if create:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            elif self.path.exists():
                descriptor = os.open(self.path, os.O_RDONLY)
            else:
                yield None  # nothing signed yet on this host
                return
        except OSError as error:
            raise KeyFileError(f"cannot open {self.path}: {error.strerror}") from None
        with os.fdopen(descriptor, "r+b" if create else "rb") as file:
            fcntl.flock(file, mode)
            try:
                yield file
            finally:
                fcntl.flock(file, fcntl.LOCK_UN)


class _Syncer:
    """One background thread that fsyncs the heads files written since its last pass.

    Writers only name the file; the lines written while an fsync runs are all made
    durable by the next one, so under load one fsync covers many rolls.
    """

    def __init__(self) -> None:
        self._pending: set[Path] = set()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def sync_soon(self, path: Path) -> None:
        with self._wake:
            self._pending.add(path)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="signed-heads-fsync", daemon=True
                )
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._pending:
                    self._wake.wait()
                paths, self._pending = self._pending, set()
            for path in paths:
                _fsync(path)


def _fsync(path: Path) -> None:
    try:
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except OSError as error:
        LOG.error("cannot fsync %s: %s", path, error.strerror)


_SYNCER = _Syncer()
