"""The dice engine: notation, dice sources and resolution under R1-R14."""
