"""A worker's life: start the live updates, end the open streams on a shutdown signal.

uvicorn waits for open responses to finish before it shuts an app down, and a live stream
never finishes by itself; so when SIGTERM or SIGINT arrives, every stream is told to end
first, and the signal then goes on to uvicorn's own handler.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import FrameType

from fastapi import FastAPI

from diceledger.infra.app.feed import Live

SIGNALS = (signal.SIGTERM, signal.SIGINT)


@asynccontextmanager
async def live_updates(app: FastAPI) -> AsyncIterator[None]:
    """Run the live updates of ``app``'s services for as long as the app runs."""
    live: Live = app.state.services.live
    loop = asyncio.get_running_loop()
    live.start(loop)
    restore = _end_streams_on_signals(loop, live)
    try:
        yield
    finally:
        restore()
        live.stop()


def _end_streams_on_signals(loop: asyncio.AbstractEventLoop, live: Live) -> Callable[[], None]:
    # Only the main thread may set signal handlers; a server run in a thread (tests) is
    # stopped by its owner, who ends the streams with live.end_streams().
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}

    def handler(signum: int, frame: FrameType | None) -> None:
        # A signal handler may interrupt the loop's thread anywhere, even inside a lock:
        # the streams are ended from the loop instead, as soon as it gets control back.
        loop.call_soon_threadsafe(live.end_streams)
        before = previous[signal.Signals(signum)]
        if callable(before):
            before(signum, frame)
        elif before == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    for sig in SIGNALS:
        signal.signal(sig, handler)

    def restore() -> None:
        for sig, before in previous.items():
            signal.signal(sig, before)

    return restore
