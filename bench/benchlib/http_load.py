"""A lean HTTP/1.1 load generator and Server-Sent Events listener on asyncio streams.

Written for W7 so that the client costs the two cores as little as possible: keep-alive
connections, requests written as bytes, answers read by Content-Length. Only what W7's
servers answer is understood (no chunked bodies outside the event streams).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

HOST = "127.0.0.1"
READ_SECONDS = 30.0  # no single answer may take longer


@dataclass
class Connection:
    """One keep-alive connection to the server."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(HOST, port)
        return cls(reader, writer)

    async def post(
        self, path: str, body: bytes, token: str | None = None, key: str | None = None
    ) -> tuple[int, bytes]:
        """POST a JSON body; return the status and the answer's body."""
        head = [f"POST {path} HTTP/1.1", f"Host: {HOST}", "Content-Type: application/json"]
        if token is not None:
            head.append(f"Authorization: Bearer {token}")
        if key is not None:
            head.append(f"Idempotency-Key: {key}")
        head.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        return await asyncio.wait_for(self._answer(), READ_SECONDS)

    async def _answer(self) -> tuple[int, bytes]:
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except OSError:
            pass


@dataclass
class LoadResult:
    """What N clients achieved in a timed window."""

    clients: int
    seconds: float
    latencies: list[float]
    failures: int
    answered: int = 0  # every 201, the warm-up's included (what a server's CPU was spent on)

    @property
    def per_second(self) -> float:
        return len(self.latencies) / self.seconds


Request = Callable[[int], tuple[str, bytes, str | None]]  # client index -> path, body, token


async def run_load(
    port: int, clients: int, seconds: float, request: Request, warmup: float = 0.5
) -> LoadResult:
    """Run ``clients`` closed-loop clients for ``seconds`` after a warm-up; time every POST.

    Every request carries a fresh Idempotency-Key. Only answers that both started and
    ended inside the window count.
    """
    connections = [await Connection.open(port) for _ in range(clients)]
    latencies: list[float] = []
    failures = answered = 0
    start = time.perf_counter() + warmup
    stop = start + seconds

    async def client(index: int, connection: Connection) -> None:
        nonlocal failures, answered
        path, body, token = request(index)
        while (now := time.perf_counter()) < stop:
            status, _ = await connection.post(path, body, token, str(uuid.uuid4()))
            done = time.perf_counter()
            if status != 201:
                failures += 1
                continue
            answered += 1
            if now >= start and done <= stop:
                latencies.append(done - now)

    try:
        await asyncio.gather(*(client(i, c) for i, c in enumerate(connections)))
    finally:
        for connection in connections:
            await connection.close()
    return LoadResult(clients, seconds, sorted(latencies), failures, answered)


@dataclass
class Subscriber:
    """One open event stream: when each roll's resolution arrived, and its reader task."""

    arrivals: dict[int, float] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None


async def subscribe(port: int, path: str, token: str) -> Subscriber:
    """Open an event stream; return a Subscriber that its reader task fills in."""
    reader, writer = await asyncio.open_connection(HOST, port)
    head = f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: Bearer {token}\r\n\r\n"
    writer.write(head.encode())
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    if status != 200:
        raise RuntimeError(f"the stream answered {status}")
    while await reader.readline() not in (b"\r\n", b""):
        pass
    subscriber = Subscriber()
    subscriber.task = asyncio.get_running_loop().create_task(_listen(reader, writer, subscriber))
    return subscriber


async def _listen(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, subscriber: Subscriber
) -> None:
    # The body is chunked: size lines and SSE lines interleave, and each chunk the server
    # sends holds whole events, so reading line by line and skipping the rest is enough.
    event = ""
    try:
        while line := await reader.readline():
            text = line.decode().rstrip("\r\n")
            if text.startswith("event: "):
                event = text[7:]
            elif text.startswith("data: ") and event == "CheckResolved":
                document: dict[str, Any] = json.loads(text[6:])
                roll = document["line"]["roll_id"]
                subscriber.arrivals.setdefault(roll, time.perf_counter())
    except ConnectionError:
        return
    finally:
        writer.close()
