"""Database backends of the project."""
