"""Prompted evaluation: KLUE tasks answered by a language model, scored by the official metrics."""
