"""Pure folds over a session log: state as of a moment, a timeline, per-player statistics."""
