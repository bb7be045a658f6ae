"""The event store and its database: backends, connections, transactions, locks, exports."""
