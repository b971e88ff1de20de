"""Topic classification (YNAT), a KLUE task: its card is README.md here."""
