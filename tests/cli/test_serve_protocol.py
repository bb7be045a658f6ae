"""`diceledger serve` sends each answer at once, whatever the number of workers.

uvicorn binds the listening socket of several workers with protocol number 0, and asyncio
then leaves Nagle's algorithm on for the connections it accepts: an answer's body waited
for the client's delayed acknowledgement. The protocol serve hands uvicorn turns it off.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from diceledger.cli.serve_protocol import NoDelayH11Protocol
from tests.cli.conftest import Ledger


async def app(scope: Any, receive: Any, send: Any) -> None:  # never called
    raise AssertionError("no request is made")


def nodelay_after_connection_made(protocol_class: type[H11Protocol]) -> int:
    """Accept a connection on a socket bound as uvicorn binds it for several workers."""
    config = uvicorn.Config(app, http=protocol_class)
    config.load()
    with socket.socket(socket.AF_INET) as listener:  # protocol 0, like uvicorn's
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with socket.create_connection(listener.getsockname()) as _client:
            accepted, _ = listener.accept()
            with accepted:
                loop = asyncio.new_event_loop()
                try:
                    protocol = protocol_class(config, ServerState(), {}, _loop=loop)
                    transport, _ = loop.run_until_complete(
                        loop.connect_accepted_socket(lambda: protocol, accepted)
                    )
                    option = accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
                    transport.abort()
                    loop.run_until_complete(asyncio.sleep(0))
                finally:
                    loop.close()
    return option


def test_uvicorns_own_protocol_leaves_nagle_on_for_such_a_socket() -> None:
    assert nodelay_after_connection_made(H11Protocol) == 0


def test_the_serve_protocol_sends_each_write_at_once() -> None:
    assert nodelay_after_connection_made(NoDelayH11Protocol) != 0


def test_serve_runs_uvicorn_with_that_protocol(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda *args, **options: ran.update(options))
    result = ledger.run("gm", "serve", "--port", "0")
    assert result.exit_code == 0, result.output
    assert ran["http"] is NoDelayH11Protocol
