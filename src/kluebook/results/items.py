"""A run's dev items as one table: each item's text, gold, prediction, whether they agree,
where the prediction line holds one the model's confidence, and for a prompted run that
generated its answers the raw answer and whether it could be read.

The prediction lines are the run's predictions file; the gold and the text come from the dev
split the run scored (its data source, folder and revision), put in the predictions' format by
the task's `gold_predictions` and matched to them by the task's keys. Where that split cannot be
read here (hub data offline, an official folder of another machine) the table holds the
predictions alone. Nothing here knows a task by name: a text field is a record's string field
that is not the guid, the gold or the source; a list of utterances (dialogue turns) is shown as
their texts.

An item is `correct` when its prediction equals the gold line field for field: exact, as the
official metrics are not per item. Where a task has several gold answers the gold line is the
first, so a prediction of another gold answer shows as not correct here though exact match
counts it; a real-valued score is neither correct nor not.
"""

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl
from kluebook.common.paths import ROOT
from kluebook.data.loading import load_split
from kluebook.prompting.answering import RAW_ANSWER, UNPARSABLE
from kluebook.recording.records import RunRecord
from kluebook.tasks import Task

# Fields of a prediction line that say how sure the model was, not what it predicted.
CONFIDENCE_FIELDS = ("probability", "probs", "choice_logprobs")
# Fields of a prompted run's line: what the model wrote, and whether it could not be read.
PROMPTED_FIELDS = (RAW_ANSWER, UNPARSABLE)


@dataclass(frozen=True)
class Items:
    """A run's items (`frame`: one row per prediction line, in the file's order) and, when the
    gold could not be read, why (`missing_gold`)."""

    frame: pd.DataFrame
    missing_gold: str = ""


def key_text(key) -> str:
    """An item's key as a page shows it: the guid, `guid turn N` for a dialogue's turn."""
    return f"{key[0]} turn {key[1]}" if isinstance(key, tuple) else str(key)


def _shown(value) -> str:
    """A gold or predicted value as text: a list as its items, a number rounded."""
    if isinstance(value, list):
        return " ".join(_shown(v) for v in value)
    if isinstance(value, float):
        return f"{value:.2f}"
    return "" if value is None else str(value)


def _answer(line: dict) -> dict:
    """The fields of a prediction line that are the answer (no key, no confidence)."""
    left_out = ("guid", "turn", *CONFIDENCE_FIELDS, *PROMPTED_FIELDS)
    return {k: v for k, v in line.items() if k not in left_out}


def confidence(line: dict) -> float | None:
    """The probability of the predicted answer where the line gives one: its `probability` (a
    classifier's), the largest of its `probs`, or of the softmax of its choices'
    log-likelihoods."""
    if line.get("probability") is not None:
        return line["probability"]
    if line.get("probs"):
        return round(max(line["probs"]), 4)
    logprobs = line.get("choice_logprobs")
    if isinstance(logprobs, dict):
        logprobs = list(logprobs.values())
    if logprobs:
        top = max(logprobs)
        return round(1 / sum(math.exp(v - top) for v in logprobs), 4)
    return None


def texts(record: dict, gold_values: list) -> dict[str, str]:
    """The text fields of a gold record (not those that hold a gold value)."""
    out = {}
    for name, value in record.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            value = " / ".join(str(v["text"]) for v in value if "text" in v) or None
        if not isinstance(value, str) or name in ("guid", "source") or value in gold_values:
            continue
        out[name] = value
    return out


# The dev splits read so far, by task, source, folder and revision: a build reads each once.
_DEV_SPLITS: dict[tuple[str, str, str, str], list[dict]] = {}


def _dev_split(task: Task, source: str, data_dir: str, revision: str) -> list[dict]:
    key = (task.name, source, data_dir, revision)
    if key not in _DEV_SPLITS:
        _DEV_SPLITS[key] = load_split(task, "dev", source, data_dir or None, revision)
    return _DEV_SPLITS[key]


def keyed_gold(task: Task, records: list[dict]) -> tuple[dict, dict]:
    """Gold records as gold prediction lines and as records, each keyed like the predictions
    (a record by every key of its lines: a dialogue by each of its turns)."""
    module, lines, by_key = task.module, {}, {}
    for gold in records:
        for line in module.gold_predictions([gold], {}):
            key = module.prediction_key(line)
            lines[key], by_key[key] = line, gold
    return lines, by_key


def items_frame(task: Task, predicted: list[dict], records: list[dict]) -> pd.DataFrame:
    """One row per prediction line: its key (`guid`), then where its gold record is among
    `records` the item's texts, source and gold, then the prediction, whether the two agree
    (None for a score) and the confidence; a column no item has a value in is left out."""
    gold, by_key = keyed_gold(task, records)
    rows = []
    for line in predicted:
        key = task.module.prediction_key(line)
        row = {"guid": key_text(key)}
        answer = _answer(line)
        correct = None
        if key in gold:
            expected = _answer(gold[key])
            row |= texts(by_key[key], list(expected.values()))
            row["source"] = by_key[key].get("source")
            row["gold"] = _shown(list(expected.values()))
            numeric = all(isinstance(v, float) for v in expected.values())
            correct = None if numeric else answer == expected
        row["prediction"] = _shown(list(answer.values()))
        row["correct"] = correct
        row["confidence"] = confidence(line)
        if RAW_ANSWER in line:  # a generated answer: what the model wrote
            row["unparsable"] = bool(line.get(UNPARSABLE))
            row["raw_answer"] = line[RAW_ANSWER]
        rows.append(row)
    return pd.DataFrame(rows).dropna(axis=1, how="all")


def run_items(task: Task, record: RunRecord, root: Path = ROOT) -> Items | None:
    """The items of a run that kept its predictions (None for one that did not), matched to
    the dev split the run scored where it can be read here."""
    if not record.predictions or not (root / record.predictions).is_file():
        return None
    predicted = read_jsonl(root / record.predictions)
    parameters = record.parameters
    try:
        records = _dev_split(
            task,
            record.data_source,
            str(parameters.get("data_dir") or ""),
            str(parameters.get("data_revision") or ""),
        )
        missing = ""
    except (KluebookError, OSError) as error:
        records, missing = [], str(error).split("\n")[0]
    return Items(items_frame(task, predicted, records), missing)


def jsonl_text(frame: pd.DataFrame) -> str:
    """The items as JSON Lines, one object per item."""
    return frame.to_json(orient="records", lines=True, force_ascii=False)
