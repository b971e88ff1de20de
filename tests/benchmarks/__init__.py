"""Tests of the scripts in benchmarks/ (a package, so its conftest does not shadow
tests/conftest.py and its fixtures are scoped to it)."""
