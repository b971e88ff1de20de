"""Named entity recognition (NER), a KLUE task: its card is README.md here."""
