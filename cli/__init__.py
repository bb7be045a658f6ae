"""The diceledger command line: thin click commands over the application services."""
