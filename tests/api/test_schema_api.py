"""GET /api/v1/schema/events: the published schema, for anyone, as the docs commit it."""

from __future__ import annotations

from tests.api.conftest import Api
from tests.infra.schema_files import SCHEMA_FILE


def test_anyone_gets_the_events_schema_as_the_docs_commit_it(api: Api) -> None:
    response = api.get("/api/v1/schema/events")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/schema+json")
    assert response.text == SCHEMA_FILE.read_text()
    assert response.json()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
