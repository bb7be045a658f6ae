"""Store invariants under random sequences of appends, right and wrong, on two backends."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diceledger.domain.errors import ConcurrencyError
from diceledger.domain.hashchain import verify_chain
from diceledger.domain.records import NewEvent, RecordedEvent
from diceledger.infra.store.database import make_engine
from diceledger.infra.store.memory import InMemoryEventStore
from diceledger.infra.store.port import EventStore
from diceledger.infra.store.sql import SqlEventStore
from tests.infra.support import new_event, ticking_clock

STREAMS = ["s0", "s1", "s2"]
# (stream index, batch size, offset added to the right expected version, retry last batch)
operations = st.lists(
    st.tuples(
        st.integers(0, len(STREAMS) - 1),
        st.integers(0, 3),
        st.sampled_from([0, 0, 0, -1, 1]),
        st.booleans(),
    ),
    max_size=25,
)


OpenStore = Callable[[], AbstractContextManager[EventStore]]


@contextmanager
def memory_store() -> Iterator[EventStore]:
    yield InMemoryEventStore(clock=ticking_clock(), batch_size=4)


@pytest.fixture(params=["memory", "sqlite"])
def open_store(request: pytest.FixtureRequest, _upgraded_sqlite_template: Path) -> OpenStore:
    if request.param == "memory":
        return memory_store

    @contextmanager
    def sqlite_store() -> Iterator[EventStore]:
        # A fresh copy per example: hypothesis runs many examples in one test call.
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "store.sqlite"
            shutil.copyfile(_upgraded_sqlite_template, path)
            engine = make_engine(f"sqlite:///{path}")
            try:
                yield SqlEventStore(engine, clock=ticking_clock(), batch_size=4)
            finally:
                engine.dispose()

    return sqlite_store


def snapshot(store: EventStore) -> list[tuple[int, str, int]]:
    return [(r.position, r.stream_id, r.stream_version) for r in store.read_all()]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(plan=operations)
def test_random_appends_keep_versions_gapless_positions_increasing_and_chains_valid(
    open_store: OpenStore, plan: list[tuple[int, int, int, bool]]
) -> None:
    model: dict[str, list[str]] = {stream: [] for stream in STREAMS}
    last: tuple[str, list[NewEvent], list[RecordedEvent]] | None = None
    with open_store() as store:
        for stream_index, size, offset, retry in plan:
            if retry and last is not None:
                stream, batch, appended = last
                # An idempotent retry returns the first records and changes nothing.
                before = snapshot(store)
                assert store.append(stream, batch, expected_version=0) == appended
                assert snapshot(store) == before
                continue
            stream = STREAMS[stream_index]
            batch = [new_event() for _ in range(size)]
            expected = len(model[stream]) + offset
            before = snapshot(store)
            if offset != 0 and batch:
                with pytest.raises(ConcurrencyError):
                    store.append(stream, batch, expected_version=expected)
                assert snapshot(store) == before
                continue
            appended = store.append(stream, batch, expected_version=expected)
            assert len(appended) == len(batch)
            model[stream] += [event.event_id for event in batch]
            if batch:
                last = (stream, batch, appended)

        recorded = list(store.read_all())
        positions = [r.position for r in recorded]
        assert positions == sorted(set(positions))
        assert verify_chain(recorded) is None
        for stream, ids in model.items():
            in_stream = list(store.read_stream(stream))
            assert [r.event_id for r in in_stream] == ids
            assert [r.stream_version for r in in_stream] == list(range(1, len(ids) + 1))
            assert store.current_version(stream) == len(ids)
        assert store.stream_ids() == [s for s in dict.fromkeys(r.stream_id for r in recorded)]
