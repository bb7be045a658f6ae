"""Campaigns: the tables that group sessions, beside the event log."""
