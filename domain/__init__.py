"""Pure rules, events, aggregates and projections of diceledger (no I/O)."""

# The release, read by the packaging metadata and recorded in every event's meta.
__version__ = "0.1.0"
