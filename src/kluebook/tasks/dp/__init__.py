"""Dependency parsing (DP), a KLUE task: its card is README.md here."""
