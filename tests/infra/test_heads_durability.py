"""A signed head is in the heads file when the roll is answered; its fsync follows apart.

A roll waits for one durable commit, the database's: the head line is written before the
answer (a crash of the process loses nothing) and fsynced by a background thread, so a
slow fsync of the heads file never holds a writer (infra/ledger/signed_heads.py).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from diceledger.infra.ledger.signed_heads import Head, SignedHeads

# Not a timing assertion: a bound so that a wait which never ends fails the test.
HANG_BOUND_SECONDS = 60
KEY = "0a1b2c3d"
HEAD = Head(3, bytes(range(32)))


def test_a_remembered_head_is_read_at_once_and_fsynced_without_holding_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "signed-heads"
    opened = threading.Event()
    synced: list[int] = []

    def held_fsync(descriptor: int) -> None:
        opened.wait(HANG_BOUND_SECONDS)  # the disk is slow until the test lets it go
        synced.append(descriptor)

    monkeypatch.setattr(os, "fsync", held_fsync)  # as signed_heads calls it
    SignedHeads(path, lambda: [KEY]).remember("tomb-1a2b3c", HEAD, KEY)
    # Back before the fsync ended: another process already reads the head.
    assert SignedHeads(path, lambda: [KEY]).latest("tomb-1a2b3c") == HEAD
    assert synced == []
    opened.set()
    deadline = time.monotonic() + HANG_BOUND_SECONDS
    while not synced and time.monotonic() < deadline:
        time.sleep(0.01)
    assert synced  # and the fsync does come
