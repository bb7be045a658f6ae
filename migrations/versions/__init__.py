"""Schema revisions, applied in order by Alembic."""
