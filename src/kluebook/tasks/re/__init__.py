"""Relation extraction (RE): the task's files, metric, smoke data and scoring.

Its card is README.md here. The names below are the interface every task package offers to
the shared code.
"""

from .data import (
    from_hub,
    gold_keys,
    gold_predictions,
    prediction_key,
    read_official,
    score,
    write_official,
)
from .synthetic import generate

__all__ = [
    "from_hub",
    "generate",
    "gold_keys",
    "gold_predictions",
    "prediction_key",
    "read_official",
    "score",
    "write_official",
]
