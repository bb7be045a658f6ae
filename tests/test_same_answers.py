"""A seed's reveal and a session's end answer the same fields from the CLI and the API.

Both faces print the application's one answer of each use case, so a field one face
gains (the end's ``disputes_until``) the other has too.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from diceledger.infra.store.database import make_engine
from diceledger.infra.store.sql import SqlEventStore
from diceledger.infra.vault.seeds import SeedVault
from tests.api.conftest import build_api, open_table
from tests.cli.conftest import Ledger


def test_reveal_and_end_answer_the_same_fields_on_the_cli_and_the_api(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    try:
        ledger = Ledger(sqlite_url, SqlEventStore(engine), SeedVault(engine))
        sid = ledger.data("gm", "session", "start", "Tomb")["session_id"]
        cli_reveal = ledger.data("gm", "seed", "reveal", sid)
        cli_end = ledger.data("gm", "session", "end", sid)
    finally:
        engine.dispose()
    api = build_api(sqlite_url)
    try:
        with api.client:
            table = open_table(api)
            base = f"/api/v1/sessions/{table.sid}"
            api_reveal = api.post(f"{base}/seed/reveal", table.gm).json()
            api_end = api.post(f"{base}/end", table.gm).json()
    finally:
        api.services.app.close()
        api.db.dispose()
    assert set(cli_reveal) == set(api_reveal)
    assert (cli_reveal["epoch"], cli_reveal["next_epoch"]) == (1, 2)
    assert (api_reveal["epoch"], api_reveal["next_epoch"]) == (1, 2)
    assert set(cli_end) == set(api_end)
    for ended in (cli_end, api_end):
        assert ended["ended"] is True and ended["epoch"] == 2
        until = datetime.fromisoformat(ended["disputes_until"])
        assert until.utcoffset() == timedelta(0)  # a time in UTC
