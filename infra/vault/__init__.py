"""The seed vault: seeds kept beside the log, sealed under a key kept outside the database.

keyfiles.py makes and reads the secret key files: the seed key's, and the signing key's.
"""
