"""Machine reading comprehension (MRC), a KLUE task: its card is README.md here."""
