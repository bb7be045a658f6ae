"""The event store: one port, an in-memory fake and a SQLAlchemy Core backend."""
