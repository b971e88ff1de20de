"""STS semantic similarity: Pearson r and thresholded binary F1 (see README.md here)."""

import math
import warnings
from collections.abc import Sequence

from scipy.stats import ConstantInputWarning, pearsonr
from sklearn.metrics import f1_score

# Scores at or above this value count as "similar" (binary label 1), for gold and prediction.
THRESHOLD = 3.0


def _check_lengths(gold: Sequence[float], pred: Sequence[float]) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold scores but {len(pred)} predictions")


def pearson_r(gold: Sequence[float], pred: Sequence[float]) -> float | None:
    """Pearson r x100 of the raw (unclipped) predictions against `real-label`.

    None where r is undefined (constant predictions or gold, or fewer than two pairs): the
    official code returns NaN there, and no number is invented in its place.
    """
    _check_lengths(gold, pred)
    if len(gold) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantInputWarning)
        r = float(pearsonr(gold, pred).statistic)
    return None if math.isnan(r) else 100.0 * r


def threshold_f1(gold: Sequence[float], pred: Sequence[float]) -> float:
    """Binary F1 x100 of the positive class after thresholding gold and prediction at >= 3.0."""
    _check_lengths(gold, pred)
    gold_binary = [int(score >= THRESHOLD) for score in gold]
    pred_binary = [int(score >= THRESHOLD) for score in pred]
    return 100.0 * float(f1_score(gold_binary, pred_binary, average="binary", zero_division=0))
