"""Who may act in a session on the server: member tokens, invites and idempotent requests."""
