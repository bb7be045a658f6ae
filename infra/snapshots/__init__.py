"""Persisted session snapshots: a cache of a long session's state, never the record."""
