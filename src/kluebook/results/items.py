"""A run's dev items as one table: each item's text, gold, prediction, whether it is right,
where the prediction line holds them the model's confidence and the answers it ranked highest,
and for a prompted run the item's own block of its prompt and, where it generated its answers,
the raw answer and whether it could be read.

The prediction lines are the run's predictions file; the gold and the text come from the dev
split the run scored (its data source, folder and revision), put in the predictions' format by
the task's `gold_predictions` and matched to them by the task's keys. Where that split cannot be
read here (hub data offline, an official folder of another machine) the table holds the
predictions alone. Nothing here knows a task by name: a text field is a record's string field
that is not the guid, the gold or the source; a list of utterances (dialogue turns) is shown as
their texts.

An item is `correct` as `kluebook compare` counts it right for its paired test
(`results.agreement.items_right`, with the run's scoring switches): a question any of whose gold
answers it gave, a similarity score on the right side of its F1's threshold. Where one gold record
holds several items (a dialogue's turns) each turn is correct when its prediction equals its
gold line field for field, as joint goal accuracy counts it.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl
from kluebook.common.paths import ROOT, scrub
from kluebook.data.loading import load_split
from kluebook.prompting.answering import ITEM_PROMPT, RAW_ANSWER, UNPARSABLE
from kluebook.recording.records import RunRecord
from kluebook.results.agreement import answer_fields, items_right
from kluebook.scoring.switches import NO_SWITCHES
from kluebook.tasks import Task, task_module
from kluebook.tasks.prompt_answers import choice_probabilities
from kluebook.training.recipes import record_switches

# Columns of long text the browser shows collapsed, and how many answers `top_answers` lists.
COLLAPSED = ("prompt", "raw_answer")
TOP = 3


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
        if all(type(v) in (str, int) for v in value):  # tags, heads: shown as they are
            return " ".join(map(str, value))
        return " ".join(_shown(v) for v in value)
    if isinstance(value, float):
        return f"{value:.2f}"
    return "" if value is None else str(value)


def _choice_probabilities(line: dict) -> dict[str, float]:
    """The softmax of a ranked line's choices' log-likelihoods, by choice ({} for another)."""
    logprobs = line.get("choice_logprobs")
    if not logprobs:
        return {}
    if not isinstance(logprobs, dict):
        logprobs = dict(enumerate(logprobs))
    shares = choice_probabilities(list(logprobs), logprobs)
    return {str(choice): share for choice, share in zip(logprobs, shares, strict=True)}


def confidence(line: dict) -> float | None:
    """The probability of the predicted answer where the line gives one: its `probability` (a
    classifier's), the largest of its `probs`, or of the softmax of its choices'
    log-likelihoods."""
    if line.get("probability") is not None:
        return line["probability"]
    if line.get("probs"):
        return round(max(line["probs"]), 4)
    choices = _choice_probabilities(line)
    return round(max(choices.values()), 4) if choices else None


def top_answers(task: Task, line: dict) -> str | None:
    """The answers a line ranks highest with their probabilities, best first (`answer 0.62;
    …`): the task's `top_answers`, else a ranked prompted line's choices; None for neither."""
    ranked, ranker = [], task_module(task).top_answers
    if ranker is not None:
        try:
            ranked = ranker(line)
        except KluebookError:  # a line without what the task ranks by (a generated answer)
            ranked = []
    if not ranked:
        choices = _choice_probabilities(line)
        ranked = sorted(choices.items(), key=lambda pair: -pair[1])[:TOP]
    return "; ".join(f"{answer} {p:.2f}" for answer, p in ranked) or None


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
    module, lines, by_key = task_module(task), {}, {}
    for gold in records:
        for line in module.gold_predictions([gold], {}):
            key = module.prediction_key(line)
            lines[key], by_key[key] = line, gold
    return lines, by_key


def correct_keys(
    task: Task, predictions: dict, records: list[dict], switches: Mapping[str, object]
) -> dict:
    """Whether each predicted item of `records` is right, by key: as the paired test counts
    its record right where the record is one item, field for field where it holds several."""
    module, whole = task_module(task), []
    correct = {}
    for record in records:
        keys = module.gold_keys([record])
        if len(keys) == 1 and keys[0] in predictions:
            whole.append(record)
        elif len(keys) > 1:
            lines = module.gold_predictions([record], switches)
            for key, gold in zip(keys, lines, strict=True):
                if key in predictions:
                    correct[key] = answer_fields(predictions[key]) == answer_fields(gold)
    if whole:
        right = items_right(task, whole, predictions, switches)
        correct |= dict(zip(module.gold_keys(whole), right.tolist(), strict=True))
    return correct


def items_frame(
    task: Task,
    predicted: list[dict],
    records: list[dict],
    switches: Mapping[str, object] = NO_SWITCHES,
) -> pd.DataFrame:
    """One row per prediction line: its key (`guid`), then where its gold record is among
    `records` the item's texts, source and gold, then the prediction, whether it is right
    (`correct_keys`), the confidence and the top answers, and a prompted line's prompt block,
    raw answer and readability; a column no item has a value in is left out."""
    gold, by_key = keyed_gold(task, records)
    key_of = task_module(task).prediction_key
    lines = {key_of(line): line for line in predicted}
    correct = correct_keys(task, lines, records, switches)
    rows = []
    for key, line in lines.items():
        row = {"guid": key_text(key)}
        answer = answer_fields(line)
        if key in gold:
            expected = answer_fields(gold[key])
            row |= texts(by_key[key], list(expected.values()))
            row["source"] = by_key[key].get("source")
            row["gold"] = _shown(list(expected.values()))
        row["prediction"] = _shown(list(answer.values()))
        row["correct"] = correct.get(key)
        row["confidence"] = confidence(line)
        row["top_answers"] = top_answers(task, line)
        row["prompt"] = line.get(ITEM_PROMPT)
        if RAW_ANSWER in line:  # a generated answer: what the model wrote
            row["unparsable"] = bool(line.get(UNPARSABLE))
            row["raw_answer"] = line[RAW_ANSWER]
        rows.append(row)
    return pd.DataFrame(rows).dropna(axis=1, how="all")


def _unreadable(error: Exception, data_dir: str) -> str:
    """Why a dev split cannot be read, in one line that names no path of this machine: an
    OSError's reason alone, a kluebook error with the data folder as the record names it."""
    if isinstance(error, OSError):
        return error.strerror or type(error).__name__
    text = str(error).split("\n")[0]
    return scrub(text.replace(os.path.expandvars(data_dir), data_dir) if data_dir else text)


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
        records, missing = [], _unreadable(error, str(parameters.get("data_dir") or ""))
    switches = record_switches(task, record.outcome.recipe) if record.outcome else NO_SWITCHES
    return Items(items_frame(task, predicted, records, switches), missing)


def jsonl_text(frame: pd.DataFrame) -> str:
    """The items as JSON Lines, one object per item."""
    return frame.to_json(orient="records", lines=True, force_ascii=False)
