"""The HTTP protocol ``diceledger serve`` runs uvicorn with: h11, with Nagle's algorithm off.

With ``--workers`` above 1, uvicorn binds the listening socket itself as
``socket.socket(family)``, whose protocol number is 0, and asyncio switches TCP_NODELAY on
only for sockets whose protocol is IPPROTO_TCP; a single worker binds through asyncio and
gets it. A response leaves as two writes (its head, then its body), so without
TCP_NODELAY the body waits for the client's delayed acknowledgement, about 40 ms on
Linux. W7 (docs/performance.md) measured the floor's endpoint at 1,600 requests/s with one
worker and 170 with two before this protocol set the option on every connection.
"""

from __future__ import annotations

import asyncio
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol

TCP_FAMILIES = (socket.AF_INET, socket.AF_INET6)


class NoDelayH11Protocol(H11Protocol):
    """uvicorn's h11 protocol that sends every write at once (TCP_NODELAY)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        connection = transport.get_extra_info("socket")
        if connection is not None and connection.family in TCP_FAMILIES:
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
