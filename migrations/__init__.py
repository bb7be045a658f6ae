"""Alembic migrations: the only way the diceledger schema changes."""
