"""The operator's schema use cases: where a database's schema stands, and bringing it up."""

from __future__ import annotations

from dataclasses import dataclass

from diceledger.infra.store.database import (
    current_revision,
    head_revision,
    make_engine,
    resolve_url,
    schema_status,
    upgrade,
)


@dataclass(frozen=True, slots=True)
class SchemaReport:
    """A database's schema revision against the one this code needs."""

    database: str  # the URL, its password hidden
    revision: str | None  # None: no schema yet
    head: str
    status: str  # "up to date", "behind; ..." or "newer than ..."

    @property
    def is_head(self) -> bool:
        """Return whether the database holds the schema this code needs."""
        return self.revision == self.head


def schema_report(db_url: str | None) -> SchemaReport:
    """Report the schema of the database at ``db_url`` (else DICELEDGER_DB or the default)."""
    engine = make_engine(resolve_url(db_url))
    try:
        current = current_revision(engine)
    finally:
        engine.dispose()
    database = engine.url.render_as_string(hide_password=True)
    return SchemaReport(database, current, head_revision(), schema_status(current))


def upgrade_schema(db_url: str | None) -> SchemaReport:
    """Upgrade the database at ``db_url`` to the schema this code needs; report it after."""
    upgrade(resolve_url(db_url))
    return schema_report(db_url)
