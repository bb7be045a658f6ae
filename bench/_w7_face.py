"""W7's face alone: diceledger's own HTTP app, every roll answered with one canned roll.

Served by bench/w7_parts.py as ``python bench/_w7_face.py PORT``, the way `diceledger
serve` serves (its protocol, its logging), on the database named by DICELEDGER_DB. A roll
request still goes through every middleware, authenticates its token, checks the session,
the rate limit and the body, and keeps its Idempotency-Key's answer in one transaction
(unless W7_FACE_NO_KEY=1). What it does not do is roll: the session's first roll is
answered again to every request, so nothing is decided, appended, signed or folded.
"""

from __future__ import annotations

import os
import sys

from fastapi import FastAPI

from diceledger.domain.session import commands as cmd
from diceledger.infra.app.idempotency import Answer, Work
from diceledger.infra.app.results import RollResult
from diceledger.web import asgi
from diceledger.web.context import WebServices

NO_KEY = "W7_FACE_NO_KEY"


def create() -> FastAPI:
    """Build the real app, then put a canned roll (and, asked, no key) in place of the work."""
    app = asgi.create()
    services: WebServices = app.state.services
    rolled = services.app.request_roll
    canned: list[RollResult] = []

    def request_roll(
        actor: str, session_id: str, command: cmd.RequestRoll | cmd.RequestOpposed
    ) -> RollResult:
        if not canned:
            canned.append(rolled(actor, session_id, command))
        return canned[0]

    services.app.request_roll = request_roll  # type: ignore[method-assign]
    if os.environ.get(NO_KEY) == "1":

        def run(scope: str, key: str, request: bytes, work: Work) -> tuple[Answer, bool]:
            return work(), False

        services.requests.run = run  # type: ignore[method-assign]
    return app


def main() -> None:
    import uvicorn

    from diceledger.cli.serve import LOGGING
    from diceledger.cli.serve_protocol import NoDelayH11Protocol

    uvicorn.run(
        "_w7_face:create",
        factory=True,
        app_dir=os.path.dirname(os.path.abspath(__file__)),
        host="127.0.0.1",
        port=int(sys.argv[1]),
        http=NoDelayH11Protocol,
        log_config=LOGGING,
        access_log=False,
        server_header=False,
    )


if __name__ == "__main__":
    main()
