"""Relation extraction (RE), a KLUE task: its card is README.md here."""
