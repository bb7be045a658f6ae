"""The application layer (app/), the composition root, and one folder of adapters per subsystem."""
