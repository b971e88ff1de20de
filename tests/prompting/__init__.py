"""Tests of the prompted track (a package, so its conftest does not shadow tests/conftest.py)."""
