"""The interface a task folder offers the shared code, `TaskModule`, with its default functions
(keys by guid) and the problem type of `check_line`. The registry (`kluebook.tasks`) reads a
folder's functions into it; `kluebook.tasks.interface` holds what task code shares to offer it."""

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

# A run's recipe switches as `score` takes them (kluebook.scoring.switches.Switches).
Switches = Mapping[str, object]


def guid_keys(records: list[dict]) -> list[Hashable]:
    """Each record keyed by its guid: the default `gold_keys`."""
    return [record["guid"] for record in records]


def guid_of(row: dict) -> Hashable:
    """A predictions line keyed by its guid: the default `prediction_key`."""
    return row["guid"]


@dataclass(frozen=True)
class LineProblem:
    """What is wrong with one predictions line (`TaskModule.check_line`): the kind of problem,
    what was found, and, where the line gives the hub copy's ids instead of names, how that copy
    numbers them (`hub_ids`)."""

    kind: str
    found: str = ""
    hub_ids: str = ""


@dataclass(frozen=True)
class TaskModule:
    """What a task offers the shared code: functions read from its data.py, and `generate` from
    its synthetic.py (kluebook/tasks/README.md says what each one must do). `switches` are the
    recipe switches of the run being scored (`Recipe.switches()`), empty where none is given."""

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
