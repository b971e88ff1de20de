"""The interface a task folder offers the shared code, `TaskModule`, and what task code shares
to offer it: the recipe switches scoring reads, keys by guid, guids from hub positions.

Task modules import this, never the registry (`kluebook.tasks`), which imports them.
"""

import math
from collections.abc import Callable, Hashable, Iterable
from dataclasses import MISSING, dataclass, fields
from pathlib import Path

from kluebook.scoring.switches import Switches


def with_position_guids(task: str, records: Iterable[dict]) -> list[dict]:
    """Records of a hub split that has no guids, each given one from its position in the split,
    `<task>-hub-00000`, as its first field."""
    return [{"guid": f"{task}-hub-{i:05d}", **record} for i, record in enumerate(records)]


def guid_keys(records: list[dict]) -> list[Hashable]:
    """Each record keyed by its guid: the default `gold_keys`."""
    return [record["guid"] for record in records]


def guid_of(row: dict) -> Hashable:
    """A predictions line keyed by its guid: the default `prediction_key`."""
    return row["guid"]


HUB_COPY = "the Hugging Face klue/klue copy"


@dataclass(frozen=True)
class LineProblem:
    """What is wrong with one predictions line (`TaskModule.check_line`): the kind of problem,
    what was found, and, where the line gives the hub copy's ids instead of names, how that copy
    numbers them (`hub_ids`)."""

    kind: str
    found: str = ""
    hub_ids: str = ""


def is_finite_number(value: object) -> bool:
    """A JSON number that is finite (booleans excluded; 1e999 reads as infinity)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def class_label_problem(
    row: dict, names: tuple[str, ...], hub_names: tuple[str, ...]
) -> LineProblem | None:
    """A line's `label` against a task's class names; an integer is the hub copy's id of the
    class in `hub_names`' order."""
    label = row.get("label")
    if type(label) is int:
        numbered = f"{HUB_COPY} numbers them 0-{len(hub_names) - 1} as {', '.join(hub_names)}"
        return LineProblem("hub label id", repr(label), numbered)
    if label not in names:
        return LineProblem("label outside the label set", repr(label)[:40])
    return None


@dataclass(frozen=True)
class TaskModule:
    """What a task offers the shared code: functions read from its data.py, and `generate` from
    its synthetic.py (README.md here says what each one must do). `switches` are the recipe
    switches of the run being scored (`Recipe.switches()`), empty where none is given."""

    read_official: Callable[[str | Path], list[dict]]  # the validated records of a file
    write_official: Callable[[Iterable[dict], str | Path], None]  # records in the file layout
    from_hub: Callable[[Iterable[dict]], list[dict]]  # rows of the hub's split as records
    # The official metrics (0-100) of predictions matched to the gold by key.
    score: Callable[[list[dict], dict, Switches], dict[str, float | None]]
    # The prediction lines that reproduce the gold, in the format `score` reads.
    gold_predictions: Callable[[list[dict], Switches], list[dict]]
    # Smoke data keyed by the roles of `files` (keyword arguments: seed and `smoke_data`).
    generate: Callable[..., dict[str, list | dict]]
    gold_keys: Callable[[list[dict]], list[Hashable]] = guid_keys  # each gold example's key
    prediction_key: Callable[[dict], Hashable] = guid_of  # KeyError/TypeError if it has none
    # Metric key -> its form from per-unit statistics (kluebook.scoring.metric_forms); without it
    # the bootstrap recomputes the official score on every resample.
    resampling_statistics: Callable[[list[dict], dict], dict] | None = None
    # The answers a predictions line ranks highest, with their probabilities, best first (the
    # item browser's `top answers`); without it, a line's `choice_logprobs` give them.
    top_answers: Callable[[dict], list[tuple[str, float]]] | None = None
    # A predictions line against its gold record, before any scoring (`kluebook submissions
    # check`): its values' types and ranges, None for a good line; without it, the official
    # scorer's own checks judge the file.
    check_line: Callable[[dict, dict], LineProblem | None] | None = None


# The interface's functions, and the module of a task folder each is read from.
TASK_INTERFACE = tuple(f.name for f in fields(TaskModule))
REQUIRED = tuple(f.name for f in fields(TaskModule) if f.default is MISSING)
INTERFACE_MODULE = {name: "synthetic" if name == "generate" else "data" for name in TASK_INTERFACE}
