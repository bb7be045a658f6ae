"""A session: who plays, which seeds are committed, and every roll as a run of events."""
