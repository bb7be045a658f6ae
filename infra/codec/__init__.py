"""The event codec: events to JSON data and back, and the older versions it still reads."""
