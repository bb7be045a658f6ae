"""Live updates: wake the open streams of a session that may have new events, in every worker."""
