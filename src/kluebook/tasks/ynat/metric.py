"""YNAT topic classification: macro F1 (see README.md here)."""

from collections.abc import Sequence

from sklearn.metrics import f1_score


def macro_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Unweighted mean of per-class F1 over the classes seen in gold or prediction, x100."""
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predictions")
    return 100.0 * float(f1_score(gold, pred, average="macro"))


def resampling_statistics(records: list[dict], predictions: dict[str, dict]) -> dict:
    """Per-headline class counts, from which kluebook.bootstrap recomputes macro F1."""
    from kluebook.bootstrap import F1, class_counts

    gold = [r["label"] for r in records]
    pred = [predictions[r["guid"]]["label"] for r in records]
    counts = class_counts(gold, pred, range(len(records)), len(records))
    return {"macro_f1": F1(**counts)}
