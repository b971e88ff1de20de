"""A task: the schema of its task.yaml (`TaskEntry`: every field, its type and its default;
unknown keys are refused) and `Task`, the entry with the task's name and folder, which every layer
takes.

kluebook/tasks/README.md describes each field for a contributor. A file that does not fit stops
the registry with one line naming the file and the first field at fault.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from kluebook.common.errors import KluebookError
from kluebook.task_types.interface import TaskModule


class _Entry(BaseModel):
    """A part of a task.yaml: unknown keys are an error, so a typo is caught."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Metric(_Entry):
    key: str  # the name `score` returns
    label: str  # the column header in tables


class ResamplingUnit(_Entry):
    """How the dev set is resampled for the bootstrap intervals (kluebook.scoring.bootstrap)."""

    name: str = "record"  # the unit in words: headline, sentence pair, dialogue
    group_by: str = "guid"  # records with equal values of this field are drawn together
    # Metrics that are a mean over the gold keys, recomputed from each unit's own score.
    mean_of_keys: tuple[str, ...] = ()


class RecipeEntry(_Entry):
    """The official recipe: for every checkpoint, then large ones, then one checkpoint id."""

    base: dict[str, Any] = {}
    large: dict[str, Any] = {}
    models: dict[str, dict[str, Any]] = {}


class SmokeFloor(_Entry):
    metric: str
    value: float
    why: str


class PredictionsExample(_Entry):
    line: str
    note: str


class Switch(_Entry):
    """A switch only this task has: its values (the official one first) and what it does."""

    choices: list[Any] = Field(min_length=1)  # the official value first
    smoke: Any
    does: str = Field(min_length=1)

    @model_validator(mode="after")
    def _smoke_is_a_choice(self) -> "Switch":
        if self.smoke not in self.choices:
            raise ValueError(f"smoke value {self.smoke!r} is not one of the choices")
        return self


class TaskEntry(_Entry):
    """A whole task.yaml."""

    title: str
    predicts: str
    order: int = 1000
    version: int
    hub_config: str | None = None  # None: the folder's name
    hub_task_type: str = "other"
    files: dict[str, str]
    metrics: tuple[Metric, ...] = Field(min_length=1)
    selection_metric: str
    resampling_unit: ResamplingUnit = ResamplingUnit()
    recipe: RecipeEntry = RecipeEntry()
    smoke: dict[str, Any] = {}  # the smoke profile's recipe changes
    smoke_data: dict[str, Any] = {}
    smoke_cost_s: float = 0.0  # kernel CPU s of one smoke run, measured: the runner's estimate
    smoke_floor: SmokeFloor
    predictions: PredictionsExample
    switches: dict[str, Switch] = {}

    @model_validator(mode="after")
    def _consistent(self) -> "TaskEntry":
        keys = {m.key for m in self.metrics}
        named = {
            "selection_metric": [self.selection_metric],
            "smoke_floor.metric": [self.smoke_floor.metric],
            "resampling_unit.mean_of_keys": list(self.resampling_unit.mean_of_keys),
        }
        for where, used in named.items():
            unknown = [key for key in used if key not in keys]
            if unknown:
                raise ValueError(f"{where}: {unknown[0]!r} is not a metric key")
        if not {"train", "dev"} <= self.files.keys():
            raise ValueError("files: needs the roles train and dev")
        return self


class Task(TaskEntry):
    """A registered task: its task.yaml's validated fields, its name and its folder. The registry
    that made it (`kluebook.tasks.load_task`) gives it the reader of its code, which
    `task_module` calls: the layers below the registry reach a task's code through it."""

    name: str
    folder: Path
    hub_config: str  # the entry's, or the folder's name
    _read_module: Callable[["Task"], TaskModule] | None = PrivateAttr(default=None)


def task_module(task: Task) -> TaskModule:
    """The task's interface: file formats, scoring and smoke-data generator, read from its folder
    and checked by the registry when first asked for (a one-line error if it lacks a function)."""
    if task._read_module is None:
        raise KluebookError(f"task {task.name!r} was not loaded by the registry (kluebook.tasks)")
    return task._read_module(task)


def read_task(folder: Path, read_module: Callable[[Task], TaskModule]) -> Task:
    """The task of one folder, from its task.yaml (validated by `TaskEntry`), whose code
    `read_module` reads; a one-line KluebookError naming the file and the field if it does not
    fit."""
    entry = read_entry(folder / "task.yaml")
    fields = {name: getattr(entry, name) for name in TaskEntry.model_fields}
    task = Task(
        **fields | {"hub_config": entry.hub_config or folder.name}, name=folder.name, folder=folder
    )
    task._read_module = read_module
    return task


def read_entry(path: Path) -> TaskEntry:
    """A task.yaml, validated; a one-line KluebookError naming the file and the field if not."""
    try:
        return TaskEntry.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except yaml.YAMLError as error:
        raise KluebookError(f"{path}: not YAML: {' '.join(str(error).split())}") from None
    except ValidationError as error:
        raise KluebookError(f"{path}: {_first_problem(error)}") from None


def _first_problem(error: ValidationError) -> str:
    """The first problem of a validation error, in words, with how many more there are."""
    problems = error.errors()
    first = problems[0]
    where = ".".join(str(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        text = f"unknown field {where!r}"
    elif first["type"] == "missing":
        text = f"missing field {where!r}"
    else:
        message = first["msg"].removeprefix("Value error, ")
        text = f"{where}: {message}" if where else message
    more = len(problems) - 1
    return text + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
