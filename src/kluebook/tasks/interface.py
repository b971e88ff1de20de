"""The interface a task folder offers the shared code, `TaskModule`, and what task code shares
to offer it: the recipe switches scoring reads, keys by guid, guids from hub positions.

Task modules import this, never the registry (`kluebook.tasks`), which imports them.
"""

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


# The interface's functions, and the module of a task folder each is read from.
TASK_INTERFACE = tuple(f.name for f in fields(TaskModule))
REQUIRED = tuple(f.name for f in fields(TaskModule) if f.default is MISSING)
INTERFACE_MODULE = {name: "synthetic" if name == "generate" else "data" for name in TASK_INTERFACE}
