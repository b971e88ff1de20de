"""Semantic textual similarity (STS), a KLUE task: its card is README.md here."""
