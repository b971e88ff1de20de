"""YNAT topic classification: macro F1 (see README.md here)."""

from collections.abc import Sequence

from sklearn.metrics import f1_score


def macro_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Unweighted mean of per-class F1 over the classes seen in gold or prediction, x100."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predictions")
    return 100.0 * float(f1_score(gold, pred, average="macro"))
