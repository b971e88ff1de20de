"""Natural language inference (NLI), a KLUE task: its card is README.md here."""
