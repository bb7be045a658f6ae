"""The checkpoint ledger: each session's Merkle tree, signed after every append.

Beside it: the signing key, the heads it signed kept outside the database, exports with
their proof, and the checkpoints a client keeps.
"""
