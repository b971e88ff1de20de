"""Dialogue state tracking (WoS), a KLUE task: its card is README.md here."""
