"""Who may act in a session on the server: member tokens, invites and idempotent requests.

names.py tells whether two member names could be mistaken for each other.
"""
