"""The Discord face: slash commands and buttons, signed by Discord, into the same log."""
