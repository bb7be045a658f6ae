"""Pure rules, events, aggregates and projections of diceledger (no I/O)."""
