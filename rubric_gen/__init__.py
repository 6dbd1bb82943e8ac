"""Rubric generation and linting; depends on `judge`, never the reverse."""
