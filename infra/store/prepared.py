"""Statements every roll sends, compiled once per dialect and run through the driver.

A Core execution looks its statement up in the compiled cache (building the cache key
first), builds the parameters through the types' processors and wraps the result with
its column metadata: measured here, about 75 µs of Python a statement on top of the
driver's own few (docs/performance.md, "Less Python per roll"). Every roll sends a
handful of the same statements, so ``Prepared`` compiles each once per dialect with
SQLAlchemy's own compiler and sends the text with ``exec_driver_sql``: the transaction,
the engine's events and the translation of driver errors stay SQLAlchemy's; only the
per-call compilation goes.

Values go through the bound columns' own bind processors, so the driver receives what
Core would have sent. Rows come back as the driver gives them, so a statement may select
only columns the driver already returns as Core would (text, numbers): one whose type
converts its results (a SQLite timestamp, a boolean) is refused when it is first
compiled, and a test compiles every one of them on both dialects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, CursorResult, Dialect

Value = object


@dataclass(frozen=True, slots=True)
class _Compiled:
    """One statement's text for one dialect, and how to lay its values out for the driver."""

    sql: str
    names: tuple[str, ...]  # the driver's order (positional dialects); empty otherwise
    defaults: Mapping[str, Value]
    processors: Mapping[str, Callable[[Any], Any]]

    def parameters(self, values: Mapping[str, Value]) -> tuple[Value, ...] | dict[str, Value]:
        merged = {**self.defaults, **values}
        for name, process in self.processors.items():
            merged[name] = process(merged[name])
        if self.names:
            return tuple(merged[name] for name in self.names)
        return merged


Statement = sa.Select[Any] | sa.Insert | sa.TextClause


class Prepared:
    """A Core statement whose every value is a named ``bindparam``, run by the driver."""

    def __init__(self, statement: Statement) -> None:
        self._statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def run(self, connection: Connection, values: Mapping[str, Value]) -> CursorResult[Any]:
        """Execute on ``connection`` (in its transaction, if one is open) with ``values``."""
        compiled = self._for(connection.dialect)
        return connection.exec_driver_sql(compiled.sql, compiled.parameters(values))

    def run_many(self, connection: Connection, rows: Sequence[Mapping[str, Value]]) -> None:
        """Execute once per row, in one call of the driver (an INSERT of several rows)."""
        compiled = self._for(connection.dialect)
        connection.exec_driver_sql(compiled.sql, [compiled.parameters(row) for row in rows])

    def _for(self, dialect: Dialect) -> _Compiled:
        # Two threads may both compile on first use: the same text, the last one kept.
        compiled = self._compiled.get(dialect.name)
        if compiled is None:
            compiled = self._compiled[dialect.name] = self.compile(dialect)
        return compiled

    def compile(self, dialect: Dialect) -> _Compiled:
        """Compile for ``dialect``; refuse a result column the driver would return raw.

        A text statement's columns are untyped: Core converts nothing of them either.
        """
        columns = (
            () if isinstance(self._statement, sa.TextClause) else self._statement.exported_columns
        )
        for column in columns:
            if column.type.dialect_impl(dialect).result_processor(dialect, None) is not None:
                raise TypeError(
                    f"column {column.name!r} ({column.type}) needs converting on "
                    f"{dialect.name}: select it through Core, or as a type that needs none"
                )
        compiled = self._statement.compile(dialect=dialect)
        processors = {}
        for name, bind in compiled.binds.items():
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                processors[name] = process
        names = tuple(compiled.positiontup or ()) if dialect.positional else ()
        defaults = {name: bind.value for name, bind in compiled.binds.items() if not bind.required}
        return _Compiled(compiled.string, names, defaults, processors)
