"""KLUE-STS: semantic similarity of a sentence pair, a real score from 0 to 5.

Records keep the official shape: {guid, source, sentence1, sentence2,
labels: {label, real-label, binary-label}}. `real-label` (the exact mean of the annotators'
scores) is the regression target and the gold of both metrics. A reduced copy of a file may
lack `real-label` and `source`: such records read with `source` None and without
`real-label`, train on the rounded `label`, and cannot serve as gold.
"""

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from kluebook.common.errors import KluebookError
from kluebook.data.klue_json import read_record_list, write_record_list
from kluebook.scoring.metric_forms import F1, Pearson, class_counts
from kluebook.scoring.switches import NO_SWITCHES, Switches
from kluebook.tasks.interface import LineProblem, is_finite_number

from .metric import THRESHOLD, pearson_r, threshold_f1

SOURCES = (
    "airbnb-rtt",
    "airbnb-sampled",
    "policy-rtt",
    "policy-sampled",
    "paraKQC-para",
    "paraKQC-sampled",
)


def is_number(value: object) -> bool:
    """A finite JSON number (booleans excluded)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _labels(path: str | Path, guid: str, labels: object) -> dict:
    if not isinstance(labels, dict) or not is_number(labels.get("label")):
        raise KluebookError(f"{path}: {guid}: labels.label must be a number")
    if labels.get("binary-label") not in (0, 1):
        raise KluebookError(f"{path}: {guid}: labels.binary-label must be 0 or 1")
    kept = {"label": labels["label"], "binary-label": int(labels["binary-label"])}
    if "real-label" in labels:
        if not is_number(labels["real-label"]):
            raise KluebookError(f"{path}: {guid}: labels.real-label must be a number")
        kept["real-label"] = labels["real-label"]
    return kept


def read_official(path: str | Path) -> list[dict]:
    """Records of an official KLUE-STS file (full or reduced fields)."""
    fields = ("guid", "sentence1", "sentence2", "labels")
    return [
        {
            "guid": item["guid"],
            "source": item.get("source"),
            "sentence1": item["sentence1"],
            "sentence2": item["sentence2"],
            "labels": _labels(path, item["guid"], item["labels"]),
        }
        for item in read_record_list(path, "KLUE-STS", "pairs", fields)
    ]


write_official = write_record_list  # the official layout, fields as given


def from_hub(rows: Iterable[dict]) -> list[dict]:
    """Hub rows (same fields; `binary-label` a 0/1 class id) as official records."""
    return [
        {
            "guid": r["guid"],
            "source": r["source"],
            "sentence1": r["sentence1"],
            "sentence2": r["sentence2"],
            "labels": {
                "label": r["labels"]["label"],
                "real-label": r["labels"]["real-label"],
                "binary-label": int(r["labels"]["binary-label"]),
            },
        }
        for r in rows
    ]


def target(record: dict) -> float:
    """The regression target: `real-label`, or the rounded `label` where the file lacks it."""
    labels = record["labels"]
    return labels.get("real-label", labels["label"])


def score(records: list[dict], predictions: dict, switches: Switches = NO_SWITCHES) -> dict:
    """Official Pearson r and F1 of {guid: {"score": raw output}} predictions.

    `pearsonr` is None where r is undefined (constant predictions or gold); print it as null.
    """
    gold, predicted = [], []
    for record in records:
        guid = record["guid"]
        if "real-label" not in record["labels"]:
            raise KluebookError(f"{guid}: the gold record has no real-label to score against")
        value = predictions[guid].get("score")
        if not is_number(value):
            raise KluebookError(f"{guid}: score must be a finite number, got {value!r}")
        gold.append(record["labels"]["real-label"])
        predicted.append(float(value))
    return {"pearsonr": pearson_r(gold, predicted), "f1": threshold_f1(gold, predicted)}


def resampling_statistics(records: list[dict], predictions: dict[str, dict]) -> dict:
    """Per-pair values and threshold counts, from which kluebook.scoring.bootstrap recomputes
    both."""
    gold = np.array([r["labels"]["real-label"] for r in records], dtype=float)
    pred = np.array([predictions[r["guid"]]["score"] for r in records], dtype=float)
    counts = class_counts(gold >= THRESHOLD, pred >= THRESHOLD, range(len(gold)), len(gold), [True])
    return {"pearsonr": Pearson(gold, pred), "f1": F1(**counts, classes="all")}


def gold_predictions(records: list[dict], switches: Switches = NO_SWITCHES) -> list[dict]:
    """Each pair's gold real-valued score as its predictions line (the format's example)."""
    return [{"guid": r["guid"], "score": r["labels"]["real-label"]} for r in records]


# The range of the similarity scale (0 to 5) a predicted score must lie in.
SCORE_RANGE = (0.0, 5.0)


def check_line(record: dict, row: dict) -> LineProblem | None:
    """A line's score: a finite number on the 0-5 scale."""
    value = row.get("score")
    if not is_finite_number(value):
        return LineProblem("score that is not a finite number", repr(value)[:40])
    if not SCORE_RANGE[0] <= value <= SCORE_RANGE[1]:
        return LineProblem("score outside 0-5", repr(value))
    return None
