"""NLI: accuracy (see README.md here)."""

from collections.abc import Sequence

from sklearn.metrics import accuracy_score


def accuracy(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Share of examples whose predicted label equals the gold label, x100."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predictions")
    return 100.0 * float(accuracy_score(gold, pred))
