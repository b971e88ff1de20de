"""RE relation classification: micro F1 without no_relation, and AUPRC (see README.md here).

Classes are integer ids in the order of relation_list.json, where id 0 is `no_relation`.
"""

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from sklearn.metrics import auc, f1_score, precision_recall_curve

NO_RELATION = 0


def micro_f1(gold: Sequence[int], pred: Sequence[int], num_classes: int = 30) -> float:
    """Micro F1 x100 over every class but no_relation.

    TP = pred == gold != no_relation; P = TP / #(pred != no_relation); R = TP / #(gold !=
    no_relation). 0 when nothing but no_relation is predicted or gold.
    """
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold labels but {len(pred)} predictions")
    positive = [c for c in range(num_classes) if c != NO_RELATION]
    return 100.0 * float(f1_score(gold, pred, labels=positive, average="micro", zero_division=0))


def auprc(gold: Sequence[int], probs: ArrayLike) -> float | None:
    """Mean over all classes (no_relation included) of the one-vs-rest area under the
    precision-recall curve, by the trapezoidal rule (not average precision), x100.

    `probs` is (examples, classes) softmax probabilities. None when a class has no gold
    example: its recall is 0/0, so the official code (sklearn 0.24) yields NaN for the mean.
    (Newer sklearn sets that recall to 1 and returns a finite area; it is not used here.)
    """
    scores = np.asarray(probs, dtype=float)
    gold_ids = np.asarray(gold, dtype=int)
    if scores.ndim != 2 or scores.shape[0] != len(gold_ids):
        raise ValueError(f"{len(gold_ids)} gold labels but probabilities of shape {scores.shape}")
    num_classes = scores.shape[1]
    if np.any((gold_ids < 0) | (gold_ids >= num_classes)):
        raise ValueError(f"gold class ids must lie in 0..{num_classes - 1}")
    if len(np.unique(gold_ids)) < num_classes:
        return None
    areas = []
    for c in range(num_classes):
        precision, recall, _ = precision_recall_curve(gold_ids == c, scores[:, c])
        areas.append(auc(recall, precision))
    return 100.0 * float(np.mean(areas))
