"""The HTTP face of diceledger and the pages a table plays in from a browser."""
