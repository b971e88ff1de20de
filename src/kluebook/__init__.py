"""kluebook: a reproducible reports book for KLUE."""

__version__ = "0.1.0"
