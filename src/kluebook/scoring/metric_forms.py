"""Metrics recomputed on many resamples at once, from per-unit statistics.

A task's `resampling_statistics` (kluebook.tasks.interface.TaskModule) returns one of these
forms per metric; `kluebook.scoring.bootstrap` calls its `values(weights)` with a (resamples, units)
matrix of multiplicities and gets the metric on every resample, equal to the official function
on the same resample (tests/scoring/test_bootstrap.py checks this for every task). The forms
name no task.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Mean:
    """100 x (sum of per-item totals) / (sum of per-item counts), e.g. accuracy or EM."""

    totals: np.ndarray  # (items,)
    counts: np.ndarray  # (items,)

    def values(self, weights: np.ndarray) -> np.ndarray:
        # Elementwise products and numpy's pairwise sum: the same bits on any machine.
        return 100.0 * (weights * self.totals).sum(axis=1) / (weights * self.counts).sum(axis=1)


@dataclass(frozen=True)
class F1:
    """F1 from per-item class counts: (items, classes) true positives, gold and predicted counts.

    average "macro": the mean of per-class F1 over the classes present in gold or prediction
    (`classes="present"`, sklearn's default labels) or over every column (`classes="all"`, with
    `zero_division` for a class absent from both); "micro": pooled over every column. `ratio`:
    per-class F1 as 2PR/(P+R) (seqeval's formula) instead of 2TP/(gold+predicted) (sklearn's).
    """

    tp: np.ndarray
    gold: np.ndarray
    pred: np.ndarray
    average: str = "macro"
    classes: str = "present"
    zero_division: float = 0.0
    ratio: bool = False

    def values(self, weights: np.ndarray) -> np.ndarray:
        # Integer counts times integer weights: exact in float64, whatever BLAS does.
        tp, gold, pred = (weights @ m.astype(float) for m in (self.tp, self.gold, self.pred))
        if self.average == "micro":
            tp, gold, pred = (m.sum(axis=1, keepdims=True) for m in (tp, gold, pred))
        if self.ratio:
            precision = np.divide(tp, pred, out=np.zeros_like(tp), where=pred > 0)
            recall = np.divide(tp, gold, out=np.zeros_like(tp), where=gold > 0)
            total = precision + recall
            f1 = np.divide(2 * precision * recall, total, out=np.zeros_like(tp), where=total > 0)
        else:
            total = gold + pred
            f1 = np.divide(2 * tp, total, out=np.full_like(tp, self.zero_division), where=total > 0)
        if self.classes == "present" and self.average == "macro":
            present = (gold + pred) > 0
            return 100.0 * (f1 * present).sum(axis=1) / present.sum(axis=1)
        return 100.0 * f1.mean(axis=1)


def class_counts(
    gold: Sequence, pred: Sequence, item: Sequence[int], items: int, classes: Sequence = ()
) -> dict[str, np.ndarray]:
    """Per-item (tp, gold, pred) counts of element-level labels; `item` maps each element to its
    item. The columns are `classes` if given (other labels are dropped), else every label seen."""
    gold, pred, item = np.asarray(gold), np.asarray(pred), np.asarray(item, dtype=int)
    seen, ids = np.unique(np.concatenate([gold, pred]), return_inverse=True)
    labels = list(classes) if len(classes) else seen.tolist()
    column = {label: index for index, label in enumerate(labels)}
    ids = np.array([column.get(label, -1) for label in seen.tolist()])[ids]
    gold_ids, pred_ids = ids[: len(gold)], ids[len(gold) :]
    width = len(labels)

    def counts(selected: np.ndarray, columns: np.ndarray) -> np.ndarray:
        keep = selected & (columns >= 0)
        flat = np.bincount(item[keep] * width + columns[keep], minlength=items * width)
        return flat.reshape(items, width)

    everything = np.ones(len(gold), dtype=bool)
    return {
        "tp": counts(gold_ids == pred_ids, gold_ids),
        "gold": counts(everything, gold_ids),
        "pred": counts(everything, pred_ids),
    }


@dataclass(frozen=True)
class Pearson:
    """Pearson r x100 of one (gold, prediction) pair per item; NaN where r is undefined."""

    gold: np.ndarray
    pred: np.ndarray

    def values(self, weights: np.ndarray) -> np.ndarray:
        n = weights.sum(axis=1)
        x = self.gold - self.gold.mean()  # centred once: fewer cancellations below
        y = self.pred - self.pred.mean()
        mean_x = (weights * x).sum(axis=1) / n
        mean_y = (weights * y).sum(axis=1) / n
        dx, dy = x - mean_x[:, None], y - mean_y[:, None]
        sxy = (weights * dx * dy).sum(axis=1)
        sxx = (weights * dx * dx).sum(axis=1)
        syy = (weights * dy * dy).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = sxy / np.sqrt(sxx * syy)
        r = np.where((sxx > 0) & (syy > 0), np.clip(r, -1.0, 1.0), np.nan)
        return 100.0 * r


@dataclass(frozen=True)
class Auprc:
    """Mean one-vs-rest area under the precision-recall curve (trapezoidal), x100, of one
    example per item, as sklearn's precision_recall_curve and auc give it on the resample;
    NaN where a class has no gold example in the resample (undefined officially)."""

    gold: np.ndarray  # (items,) class ids
    probs: np.ndarray  # (items, classes)

    def values(self, weights: np.ndarray) -> np.ndarray:
        # (items, resamples); float32 holds these integer counts exactly and halves the traffic.
        by_item = np.ascontiguousarray(weights.T, dtype=np.float32)
        areas = [self._area(c, by_item) for c in range(self.probs.shape[1])]
        return 100.0 * np.mean(areas, axis=0)

    def _area(self, c: int, by_item: np.ndarray) -> np.ndarray:
        """Class c's area on each resample. Thresholds are the distinct scores, highest first;
        only those that hold a positive example add area (recall rises there), each a trapezoid
        back to the threshold before it. A threshold whose examples were all left out repeats
        the point before it, or before any example the curve's start (recall 0, precision 1)."""
        order = np.argsort(-self.probs[:, c], kind="stable")
        scores = self.probs[order, c]
        new = np.append(True, scores[1:] != scores[:-1])
        group = np.cumsum(new) - 1  # threshold of each sorted example
        ends = np.append(np.flatnonzero(new)[1:] - 1, len(scores) - 1)
        positive = self.gold[order] == c
        rising = np.unique(group[positive])
        if not len(rising):
            return np.full(by_item.shape[1], np.nan)
        needed = np.union1d(rising, rising - 1)
        needed = needed[needed >= 0]
        positions = ends[needed]
        in_order = by_item[order[: positions[-1] + 1]]
        starts = np.append(0, positions[:-1] + 1)
        seen = np.cumsum(np.add.reduceat(in_order, starts, axis=0), axis=0)
        positives_seen = np.cumsum(positive)[positions]  # positive examples up to each point
        cumulative = np.cumsum(by_item[order[positive]], axis=0)
        tps = np.where(positives_seen[:, None] > 0, cumulative[positives_seen - 1], 0.0)
        tps, seen, total = tps.astype(float), seen.astype(float), cumulative[-1].astype(float)
        precision = np.divide(tps, seen, out=np.ones_like(tps), where=seen > 0)
        recall = np.divide(tps, total, out=np.zeros_like(tps), where=total > 0)
        at = np.searchsorted(needed, rising)
        before = at - 1
        start = rising == 0  # the first threshold: the trapezoid back to (0, 1)
        r_before = np.where(start[:, None], 0.0, recall[np.maximum(before, 0)])
        p_before = np.where(start[:, None], 1.0, precision[np.maximum(before, 0)])
        area = ((recall[at] - r_before) * (precision[at] + p_before) / 2).sum(axis=0)
        return np.where(total > 0, area, np.nan)
