"""How sure each number is: bootstrap intervals of the official metrics, and paired comparisons.

The dev set is resampled by its natural unit (a headline, a sentence pair, a sentence, a
question, a dialogue: `resampling_unit` in each task.yaml, `Task.resampling_unit`), with
replacement, `RESAMPLES` times from a fixed seed, and the official metric is recomputed on every
resample. A resample is a vector of multiplicities, one per unit, and the same vectors are used
for every run on the same dev set, so two runs (or two configurations) are compared on the same
resamples: a paired test.

A metric is recomputed in one of three ways, all equal to the official function on the same
resample (tests/scoring/test_bootstrap.py checks this for every task):
- from per-unit statistics, where the task offers `resampling_statistics(records, predictions)`
  in its interface (kluebook.scoring.metric_forms: F1 from true-positive, gold and predicted counts;
  Pearson r from sums; AUPRC from one weighted precision-recall curve per class);
- as a weighted mean of the official score of each unit alone, for the metrics that task.yaml
  lists under `resampling_unit.mean_of_keys` (a mean over the gold keys: accuracy, EM, JGA);
- otherwise by calling the task's official `score` on the resampled records (slow, but any task
  gets intervals without code of its own).
Every score is computed with the recipe switches passed in (a run's own, in a run).

The interval is the percentile interval (2.5th and 97.5th percentiles of the resampled values).
Several seeds of one configuration are pooled by a two-stage bootstrap: each resample draws the
seeds with replacement, then uses the same unit resample for all of them, and averages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kluebook.common.errors import KluebookError
from kluebook.scoring.metric_forms import Mean
from kluebook.scoring.predictions import index_predictions
from kluebook.scoring.switches import NO_SWITCHES
from kluebook.task_types.task import Task, task_module

RESAMPLES = 1000
SEED = 22
LEVEL = 0.95
_CHUNK = 200  # resamples computed at once (memory: _CHUNK x units floats)
_DIGITS = 6  # interval ends are stored rounded, on the 0-100 scale


# --- Units, resamples and replicates ---------------------------------------------------------


def units_of(task: Task, records: list[dict]) -> np.ndarray:
    """The unit index of each gold record: records that share `resampling_unit.group_by`
    (default: the guid, i.e. each record is a unit) are resampled together."""
    field = task.resampling_unit.group_by
    index: dict = {}
    return np.array([index.setdefault(record[field], len(index)) for record in records], int)


def multiplicities(units: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """(resamples, units) counts: how often each unit is drawn in each resample."""
    draws = np.random.default_rng(seed).integers(0, units, size=(resamples, units))
    return np.array([np.bincount(row, minlength=units) for row in draws])


def fast_statistics(
    task: Task,
    records: list[dict],
    predictions: dict,
    switches: Mapping[str, object] = NO_SWITCHES,
) -> dict:
    """Metric key -> its form from per-item statistics (one item per gold record)."""
    module = task_module(task)
    statistics = {}
    if module.resampling_statistics is not None:
        statistics.update(module.resampling_statistics(records, predictions))
    keys = task.resampling_unit.mean_of_keys
    if keys:
        sizes = np.array([len(module.gold_keys([record])) for record in records], dtype=float)
        alone = [module.score([record], predictions, switches) for record in records]
        for key in keys:
            means = np.array([scores[key] for scores in alone]) / 100.0
            statistics[key] = Mean(means * sizes, sizes)
    return statistics


def official_values(
    task: Task,
    records: list[dict],
    predictions: dict,
    weights,
    switches: Mapping[str, object] = NO_SWITCHES,
) -> dict:
    """The official `score` of each resample (records repeated by their weights): slow, the
    reference the faster forms are tested against."""
    values: dict[str, list] = {}
    for row in weights:
        resample = [r for r, times in zip(records, row, strict=True) for _ in range(int(times))]
        for key, value in task_module(task).score(resample, predictions, switches).items():
            values.setdefault(key, []).append(np.nan if value is None else float(value))
    return {key: np.array(v) for key, v in values.items()}


def replicates(
    task: Task,
    records: list[dict],
    predictions: dict,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    keys: Sequence[str] | None = None,
    switches: Mapping[str, object] = NO_SWITCHES,
) -> dict[str, np.ndarray]:
    """Metric key -> its value on each resample (NaN where undefined), for the task's metrics,
    scored with the recipe `switches`."""
    keys = list(keys or (m.key for m in task.metrics))
    units = units_of(task, records)
    counts = multiplicities(int(units.max()) + 1 if len(units) else 0, resamples, seed)
    weights = counts[:, units]
    fast = fast_statistics(task, records, predictions, switches)
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
        exact = official_values(task, records, predictions, weights, switches)
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
    task: Task,
    gold: list[dict],
    rows: list[dict],
    metrics: dict | None = None,
    switches: Mapping[str, object] = NO_SWITCHES,
) -> dict:
    """The outcome fields of one run: `intervals` of its defined metrics and `bootstrap`."""
    predictions = index_predictions(task, gold, rows)
    if metrics is None:
        metrics = task_module(task).score(gold, predictions, switches)
    keys = [m.key for m in task.metrics if metrics.get(m.key) is not None]
    values = replicates(task, gold, predictions, keys=keys, switches=switches)
    intervals = {key: percentile_interval(values[key]) for key in keys}
    return {
        "intervals": {key: value for key, value in intervals.items() if value is not None},
        "bootstrap": {"resamples": RESAMPLES, "seed": SEED, "unit": task.resampling_unit.name},
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
