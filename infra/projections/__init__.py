"""Persisted, checkpointed copies of the projections, kept in the store's database."""
