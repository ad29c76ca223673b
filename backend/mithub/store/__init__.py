"""Meeting storage: the in-memory repository and the SQLAlchemy one (SQLite or PostgreSQL)."""
