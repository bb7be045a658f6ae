"""Adapters: the SQLAlchemy event store, the seed vault and the application services."""
