"""How sure each number is: bootstrap intervals of the official metrics, and paired comparisons.

The dev set is resampled by its natural unit (a headline, a sentence pair, a sentence, a
question, a dialogue: `resampling_unit` in each task.yaml), with replacement, `RESAMPLES` times
from a fixed seed, and the official metric is recomputed on every resample. A resample is a
vector of multiplicities, one per unit, and the same vectors are used for every run on the same
dev set, so two runs (or two configurations) are compared on the same resamples: a paired test.

A metric is recomputed in one of three ways, all equal to the official function on the same
resample (tests/test_bootstrap.py checks this for every task):
- from per-unit counts, where the task's metric.py offers `resampling_statistics(records,
  predictions)` (F1 from true-positive, gold and predicted counts; Pearson r from sums; AUPRC
  from one weighted precision-recall curve per class);
- as a weighted mean of the official score of each unit alone, for the metrics that task.yaml
  lists under `resampling_unit.mean_of_keys` (a mean over the gold keys: accuracy, EM, JGA);
- otherwise by calling the task's official `score` on the resampled records (slow, but any task
  gets intervals without code of its own).

The interval is the percentile interval (2.5th and 97.5th percentiles of the resampled values).
Several seeds of one configuration are pooled by a two-stage bootstrap: each resample draws the
seeds with replacement, then uses the same unit resample for all of them, and averages.
"""

import importlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import yaml

from kluebook.errors import KluebookError
from kluebook.scoring import index_predictions
from kluebook.tasks import Task

RESAMPLES = 1000
SEED = 22
LEVEL = 0.95
_CHUNK = 200  # resamples computed at once (memory: _CHUNK x units floats)
_DIGITS = 6  # interval ends are stored rounded, on the 0-100 scale


# --- The metric forms computed from per-unit statistics ------------------------------------


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


# --- Units, resamples and replicates ---------------------------------------------------------


def unit_name(task: Task) -> str:
    return _unit_entry(task)["name"]


def _unit_entry(task: Task) -> dict:
    """The task.yaml's `resampling_unit`; without one, each record is a unit, a `record`."""
    with open(task.folder / "task.yaml", encoding="utf-8") as handle:
        entry = yaml.safe_load(handle).get("resampling_unit") or {}
    return {"name": "record", **entry}


def units_of(task: Task, records: list[dict]) -> np.ndarray:
    """The unit index of each gold record: records that share `resampling_unit.group_by`
    (default: the guid, i.e. each record is a unit) are resampled together."""
    field = _unit_entry(task).get("group_by", "guid")
    index: dict = {}
    return np.array([index.setdefault(record[field], len(index)) for record in records], int)


def multiplicities(units: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """(resamples, units) counts: how often each unit is drawn in each resample."""
    draws = np.random.default_rng(seed).integers(0, units, size=(resamples, units))
    return np.array([np.bincount(row, minlength=units) for row in draws])


def fast_statistics(task: Task, records: list[dict], predictions: dict) -> dict:
    """Metric key -> its form from per-item statistics (one item per gold record)."""
    statistics = {}
    try:
        metric = importlib.import_module(f"{task.module.__name__}.metric")
    except ModuleNotFoundError:
        metric = None
    own = getattr(metric, "resampling_statistics", None)
    if own is not None:
        statistics.update(own(records, predictions))
    module = task.module
    keys = _unit_entry(task).get("mean_of_keys", [])
    if keys:
        sizes = np.array([len(module.gold_keys([record])) for record in records], dtype=float)
        alone = [module.score([record], predictions) for record in records]
        for key in keys:
            means = np.array([scores[key] for scores in alone]) / 100.0
            statistics[key] = Mean(means * sizes, sizes)
    return statistics


def official_values(task: Task, records: list[dict], predictions: dict, weights) -> dict:
    """The official `score` of each resample (records repeated by their weights): slow, the
    reference the faster forms are tested against."""
    values: dict[str, list] = {}
    for row in weights:
        resample = [r for r, times in zip(records, row, strict=True) for _ in range(int(times))]
        for key, value in task.module.score(resample, predictions).items():
            values.setdefault(key, []).append(np.nan if value is None else float(value))
    return {key: np.array(v) for key, v in values.items()}


def replicates(
    task: Task,
    records: list[dict],
    predictions: dict,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    keys: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """Metric key -> its value on each resample (NaN where undefined), for the task's metrics."""
    keys = list(keys or (m.key for m in task.metrics))
    units = units_of(task, records)
    counts = multiplicities(int(units.max()) + 1 if len(units) else 0, resamples, seed)
    weights = counts[:, units]
    fast = fast_statistics(task, records, predictions)
    out = {}
    for key in keys:
        if key in fast:
            chunks = [
                fast[key].values(weights[start : start + _CHUNK].astype(float))
                for start in range(0, resamples, _CHUNK)
            ]
            out[key] = np.concatenate(chunks)
    slow = [key for key in keys if key not in out]
    if slow:
        exact = official_values(task, records, predictions, weights)
        out.update({key: exact[key] for key in slow})
    return out


def percentile_interval(values: np.ndarray, level: float = LEVEL) -> dict | None:
    """The percentile interval of the defined resampled values, or None if none is defined."""
    values = values[np.isfinite(values)]
    if not len(values):
        return None
    tail = 100.0 * (1 - level) / 2
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return {"low": round(float(low), _DIGITS), "high": round(float(high), _DIGITS)}


def run_intervals(
    task: Task, gold: list[dict], rows: list[dict], metrics: dict | None = None
) -> dict:
    """The outcome fields of one run: `intervals` of its defined metrics and `bootstrap`."""
    predictions = index_predictions(task, gold, rows)
    metrics = metrics if metrics is not None else task.module.score(gold, predictions)
    keys = [m.key for m in task.metrics if metrics.get(m.key) is not None]
    values = replicates(task, gold, predictions, keys=keys)
    intervals = {key: percentile_interval(values[key]) for key in keys}
    return {
        "intervals": {key: value for key, value in intervals.items() if value is not None},
        "bootstrap": {"resamples": RESAMPLES, "seed": SEED, "unit": unit_name(task)},
    }


# --- Several seeds, and two configurations ---------------------------------------------------


def pooled(per_seed: Sequence[np.ndarray], seed: int = SEED) -> np.ndarray:
    """The two-stage bootstrap of a mean over seeds: each resample draws the seeds with
    replacement and averages their values on that resample's units. (seeds, resamples) in."""
    stacked = np.asarray(per_seed, dtype=float)
    if len(stacked) == 1:
        return stacked[0]
    rng = np.random.default_rng([seed, len(stacked)])
    drawn = rng.integers(0, len(stacked), size=(stacked.shape[1], len(stacked)))
    return np.take_along_axis(stacked.T, drawn, axis=1).mean(axis=1)


@dataclass(frozen=True)
class Difference:
    """A minus B on one metric: the observed difference, its interval, a p-value, the verdict."""

    metric: str
    a: float
    b: float
    difference: float
    low: float
    high: float
    p_value: float

    @property
    def verdict(self) -> str:
        if self.low > 0:
            return "A is better"
        if self.high < 0:
            return "B is better"
        return "not distinguishable with this dev set"


def paired_difference(
    metric: str,
    observed_a: Sequence[float],
    observed_b: Sequence[float],
    replicates_a: Sequence[np.ndarray],
    replicates_b: Sequence[np.ndarray],
    level: float = LEVEL,
) -> Difference:
    """The paired bootstrap of mean(A) - mean(B) over seeds, on the same unit resamples.

    The p-value is two-sided, from the same resampled differences as the interval: twice the
    smaller share of differences at or below zero and at or above zero (each counted with the
    observed one, so it is never 0); it is below 1 - `level` when the interval excludes zero.
    """
    a, b = float(np.mean(observed_a)), float(np.mean(observed_b))
    diff = pooled(replicates_a, SEED) - pooled(replicates_b, SEED + 1)
    diff = diff[np.isfinite(diff)]
    if not len(diff):
        raise KluebookError(f"{metric} is undefined on every resample")
    tail = 100.0 * (1 - level) / 2
    low, high = np.percentile(diff, [tail, 100.0 - tail])
    below = (1 + np.sum(diff <= 0)) / (1 + len(diff))
    above = (1 + np.sum(diff >= 0)) / (1 + len(diff))
    p_value = float(min(1.0, 2 * min(below, above)))
    return Difference(metric, a, b, a - b, float(low), float(high), p_value)
