"""PostgreSQL's 64-bit transaction id (``xid8``) as a SQLAlchemy type holding an int."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.types import UserDefinedType


class TransactionId(UserDefinedType[int]):
    """An ``xid8``: psycopg reads it as text, so values cross as text and leave as int."""

    cache_ok = True

    def get_col_spec(self, **_options: Any) -> str:
        return "xid8"

    def bind_processor(self, dialect: Dialect) -> Callable[[int | None], str | None]:
        return lambda value: None if value is None else str(value)

    def bind_expression(self, bindvalue: Any) -> Any:
        # A parameter arrives as text; xid8 has no implicit cast from it.
        return sa.cast(bindvalue, self)

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], int | None]:
        return lambda value: None if value is None else int(value)


def teach_reflection() -> None:
    """Let reflection (Alembic's schema comparison) read xid8 columns without a warning.

    Called when a PostgreSQL engine is made, so SQLite-only commands never import the
    PostgreSQL dialect.
    """
    from sqlalchemy.dialects.postgresql import base

    base.ischema_names.setdefault("xid8", TransactionId)
