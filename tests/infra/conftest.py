"""Fixtures for tests that run the same way on both SQL backends."""

from __future__ import annotations

import pytest

from tests.infra.support import database_url


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    ]
)
def sql_url(request: pytest.FixtureRequest) -> str:
    """Return an upgraded, empty database: a SQLite file, then a PostgreSQL schema."""
    url = database_url(request.param, request)
    assert url is not None
    return url
