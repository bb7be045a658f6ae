"""Prepared statements read and write exactly what Core does, on SQLite and PostgreSQL.

``Prepared`` (infra/store/prepared.py) sends a statement compiled once through the driver,
for the few statements every roll sends. Its oracle is the same statement executed by
Core: the rows written must read back alike through Core, and the rows read must be
Core's, for values at the edges of their types (a timestamp with no microseconds, text
outside ASCII, NULLs).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from diceledger.infra.access import store as access_store
from diceledger.infra.access.schema import idempotent_requests, member_tokens
from diceledger.infra.access.store import AccessStore
from diceledger.infra.ledger import checkpoint_ledger, checks
from diceledger.infra.ledger.schema import merkle_nodes, signed_checkpoints
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.prepared import Prepared

SQLITE, POSTGRESQL = sqlite.dialect(), postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]
TEXT = st.text(st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=40)
MOMENTS = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)
EVERY = [  # each prepared statement, and the dialects it runs on
    (access_store._TOKEN_BY_HASH, SQLITE),
    (access_store._TOKEN_BY_HASH, POSTGRESQL),
    (access_store._ANSWER_BY_KEY, SQLITE),
    (access_store._ANSWER_BY_KEY, POSTGRESQL),
    (access_store._insert_if_new("sqlite"), SQLITE),
    (access_store._insert_if_new("postgresql"), POSTGRESQL),
    *[
        (prepared, dialect)
        for prepared in (
            checks._SIGNED_STATE,
            checkpoint_ledger._NODES_INSERT,
            checkpoint_ledger._CHECKPOINT_INSERT,
        )
        for dialect in (SQLITE, POSTGRESQL)
    ],
]


def in_utc(moment: datetime) -> datetime:
    """A timestamp as UTC: SQLite's Core reads it back naive, PostgreSQL's in its zone."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@pytest.fixture
def engine(sql_url: str) -> Iterator[Engine]:
    built = make_engine(sql_url)
    yield built
    built.dispose()


@pytest.mark.parametrize(
    "prepared, dialect", EVERY, ids=[f"{n}-{dialect.name}" for n, (_, dialect) in enumerate(EVERY)]
)
def test_every_prepared_statement_compiles_on_its_dialects(
    prepared: Prepared, dialect: sa.Dialect
) -> None:
    # Compiling refuses a result column the driver would return unconverted.
    assert prepared.compile(dialect).sql


def test_a_column_the_driver_would_return_unconverted_is_refused() -> None:
    # SQLite's driver returns a timestamp as text; Core would have made it a datetime.
    with pytest.raises(TypeError, match="created_at"):
        Prepared(sa.select(member_tokens.c.created_at)).compile(sqlite.dialect())


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    scope=TEXT,
    key=TEXT,
    body=st.one_of(st.none(), TEXT),
    status=st.one_of(st.none(), st.integers(100, 599)),
    moment=MOMENTS,
    whole_second=st.booleans(),
)
def test_an_answer_kept_prepared_reads_back_as_core_reads_it(
    engine: Engine,
    scope: str,
    key: str,
    body: str | None,
    status: int | None,
    moment: datetime,
    whole_second: bool,
) -> None:
    moment = moment.replace(microsecond=0) if whole_second else moment
    store = AccessStore(engine)
    fingerprint = "f" * 64
    with engine.begin() as connection:
        connection.execute(sa.delete(idempotent_requests))
    with store.transaction():
        assert store.keep_answer(scope, key, fingerprint, status or 0, body or "", moment)
    with store.transaction():  # the same key again: nothing inserted, told so
        assert not store.keep_answer(scope, key, "0" * 64, 200, "other", moment)

    with engine.connect() as connection:
        row = connection.execute(sa.select(idempotent_requests)).one()
    assert (row.scope, row.idempotency_key, row.fingerprint) == (scope, key, fingerprint)
    assert (row.status, row.body) == (status or 0, body or "")
    assert in_utc(row.created_at) == moment
    found = store.find_request(scope, key)
    assert found is not None
    assert (found.fingerprint, found.status, found.body) == (fingerprint, status or 0, body or "")
    assert store.find_request(scope, key + "x") is None


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    member=TEXT,
    session=TEXT,
    revoked=st.booleans(),
    signed_out=st.booleans(),
    moment=MOMENTS,
)
def test_a_token_read_prepared_is_the_token_core_reads(
    engine: Engine, member: str, session: str, revoked: bool, signed_out: bool, moment: datetime
) -> None:
    row = {
        "token_id": "t-1",
        "token_hash": "a" * 64,
        "session_id": session[:200],
        "member": member,
        "created_at": moment,
        "revoked_at": moment + timedelta(seconds=1) if revoked else None,
        "signed_out_at": moment.replace(microsecond=0) if signed_out else None,
    }
    with engine.begin() as connection:
        connection.execute(sa.delete(member_tokens))
        connection.execute(member_tokens.insert(), row)
    with engine.connect() as connection:
        core = connection.execute(sa.select(member_tokens)).one()

    found = AccessStore(engine).find_token("a" * 64)
    assert found is not None
    assert (found.token_id, found.session_id, found.member) == (
        core.token_id,
        core.session_id,
        core.member,
    )
    assert (found.revoked, found.signed_out) == (
        core.revoked_at is not None,
        core.signed_out_at is not None,
    )
    assert AccessStore(engine).find_token("b" * 64) is None


HASHES = st.binary(min_size=32, max_size=32)
EXAMPLES = itertools.count()


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    size=st.integers(1, 2**40),
    root=HASHES,
    note=TEXT,
    moment=MOMENTS,
    whole_second=st.booleans(),
    edge=st.one_of(st.none(), st.binary(max_size=96)),
    nodes=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 2**40), HASHES), max_size=4),
)
def test_the_ledgers_rows_written_prepared_read_back_as_core_writes_them(
    engine: Engine,
    size: int,
    root: bytes,
    note: str,
    moment: datetime,
    whole_second: bool,
    edge: bytes | None,
    nodes: list[tuple[int, int, bytes]],
) -> None:
    moment = moment.replace(microsecond=0) if whole_second else moment
    checkpoint = {"tree_size": size, "root": root, "note": note, "key_id": "0a1b2c3d"}
    checkpoint |= {"issued_at": moment, "edge": edge}
    tree = {(level, index): value for level, index, value in nodes}
    rows = [{"level": lv, "node_index": ix, "hash": value} for (lv, ix), value in tree.items()]
    core, fast = f"core-{next(EXAMPLES)}", f"fast-{next(EXAMPLES)}"  # the ledger keeps rows
    with engine.begin() as connection:
        connection.execute(signed_checkpoints.insert(), {**checkpoint, "stream_id": core})
        checkpoint_ledger._CHECKPOINT_INSERT.run(connection, {**checkpoint, "stream_id": fast})
        if rows:
            connection.execute(merkle_nodes.insert(), [{**r, "stream_id": core} for r in rows])
            checkpoint_ledger._NODES_INSERT.run_many(
                connection, [{**r, "stream_id": fast} for r in rows]
            )

    def read(table: sa.Table, stream_id: str) -> list[tuple[object, ...]]:
        query = sa.select(*[c for c in table.c if c.name != "stream_id"])
        with engine.connect() as connection:
            found = connection.execute(query.where(table.c.stream_id == stream_id))
            return sorted(tuple(row) for row in found)

    for table in (signed_checkpoints, merkle_nodes):
        assert read(table, fast) == read(table, core)
    assert len(read(merkle_nodes, fast)) == len(rows)
