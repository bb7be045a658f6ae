"""The application layer: typed use cases that the CLI and the HTTP face both call."""
