"""`kluebook score`: the official metrics of a predictions file.

A predictions file is JSON Lines, one object per gold example, matched to it by its key (the guid;
for dialogue state tracking, the guid and the turn). Each task's README.md gives its line format.
The notebooks score their predictions with the same function and their recipe's switches, so a
run's recorded metrics equal what `kluebook score` prints for its predictions file given the same
switches (`--set name=value`); a switch changes the scoring only where it is passed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl
from kluebook.data.loading import load_split
from kluebook.scoring.switches import NO_SWITCHES
from kluebook.task_types.task import Task, task_module


def index_predictions(task: Task, gold: list[dict], rows: list[dict]) -> dict:
    """Predictions keyed like the gold examples; a missing, duplicate or unknown key is an error."""
    module = task_module(task)
    expected = module.gold_keys(gold)
    wanted = set(expected)
    predictions = {}
    for number, row in enumerate(rows, start=1):
        try:
            key = module.prediction_key(row)
        except (KeyError, TypeError) as error:
            raise KluebookError(f"prediction line {number}: missing field {error}") from error
        if key not in wanted:
            raise KluebookError(f"unknown guid {_show(key)} (prediction line {number})")
        if key in predictions:
            raise KluebookError(f"duplicate guid {_show(key)} (prediction line {number})")
        predictions[key] = row
    missing = [key for key in expected if key not in predictions]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise KluebookError(f"missing prediction for guid {_show(missing[0])}{more}")
    return predictions


def records_by_key(task: Task, gold: list[dict]) -> dict:
    """{key: the gold record it belongs to}, a record under each of its keys (a dialogue-state
    task's dialogue under each of its user turns)."""
    module = task_module(task)
    return {key: record for record in gold for key in module.gold_keys([record])}


def _show(key) -> str:
    return " turn ".join(str(part) for part in key) if isinstance(key, tuple) else str(key)


def score_predictions(
    task: Task, gold: list[dict], rows: list[dict], switches: Mapping[str, object] = NO_SWITCHES
) -> dict:
    """The official metrics of prediction rows against gold records (0-100 scale), scored as
    the recipe `switches` say (a run's `Recipe.switches()`)."""
    return task_module(task).score(gold, index_predictions(task, gold, rows), switches)


@dataclass(frozen=True)
class ScoredFile:
    """A predictions file scored (`score_file`): the gold records, the file's prediction rows
    and their official metrics."""

    records: list[dict]
    rows: list[dict]
    metrics: dict


def score_file(
    task: Task,
    pred: str | Path,
    gold: str | Path | None = None,
    switches: Mapping[str, object] = NO_SWITCHES,
) -> ScoredFile:
    """Score a JSON Lines predictions file against an official gold file or the hub split."""
    if gold:
        records = task_module(task).read_official(gold)
    else:
        records = load_split(task, "dev", "hub", None)
    rows = read_jsonl(pred)
    return ScoredFile(records, rows, score_predictions(task, records, rows, switches))


def undefined_metrics(metrics: dict) -> list[str]:
    """Keys whose value is undefined (None or NaN), to be printed as null."""
    return [k for k, v in metrics.items() if v is None or (isinstance(v, float) and math.isnan(v))]
