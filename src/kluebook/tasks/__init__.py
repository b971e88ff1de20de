"""The task registry, discovered from the task folders.

Every folder here (and in each folder named by `KLUEBOOK_TASKS_PATH`, `:`-separated) that holds a
`task.yaml` is a task, named after the folder. Its package offers the interface the shared code
uses, `TaskModule`, checked when the package is first imported; `README.md` beside this file
explains the layout and how to add a task.
"""

import importlib
import importlib.util
import os
import sys
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Protocol

import yaml

from kluebook.errors import KluebookError
from kluebook.paths import NOTEBOOKS, PACKAGED_NOTEBOOKS

BUILT_IN = Path(__file__).parent
EXTRA_TASKS_VARIABLE = "KLUEBOOK_TASKS_PATH"


class TaskModule(Protocol):
    """What a task package offers the shared code (README.md here says what each one must do)."""

    def read_official(self, path: str | Path) -> list[dict]:
        """The validated records of an official file."""

    def write_official(self, records: Iterable[dict], path: str | Path) -> None:
        """Records written in the official file layout."""

    def from_hub(self, rows: Iterable[dict]) -> list[dict]:
        """Rows of the hub's split as the same records."""

    def gold_keys(self, records: list[dict]) -> list[Hashable]:
        """The key of every gold example, in order."""

    def prediction_key(self, row: dict) -> Hashable:
        """The key of one predictions line (KeyError or TypeError when it has none)."""

    def score(self, records: list[dict], predictions: dict) -> dict[str, float | None]:
        """The official metrics (0-100) of predictions matched to the gold by key."""

    def generate(self, seed: int = 0) -> dict[str, list | dict]:
        """Smoke data keyed by the roles of `files` (a task may take more keyword arguments)."""

    def gold_predictions(self, records: list[dict]) -> list[dict]:
        """The prediction lines that reproduce the gold, in the format `score` reads."""


# The names a task package must offer: the methods of TaskModule, in their order above.
TASK_INTERFACE = tuple(name for name in vars(TaskModule) if not name.startswith("_"))


@dataclass(frozen=True)
class Metric:
    key: str
    label: str


@dataclass(frozen=True)
class Task:
    """One registered task: its folder, its registry entry and its package."""

    name: str
    folder: Path
    title: str
    predicts: str
    order: int
    version: int
    hub_config: str
    hub_task_type: str  # the Hugging Face task type in model-index snippets ("other" if none)
    files: dict[str, str]
    metrics: tuple[Metric, ...]
    selection_metric: str
    recipe: dict
    smoke_recipe: dict
    smoke_floor: dict
    predictions: dict
    switches: dict  # its own recipe switches: name -> {choices (official first), smoke, does}
    smoke_data: dict = field(default_factory=dict)
    smoke_cost_s: float = 0.0  # kernel CPU s of one smoke run, measured: the runner's estimate

    @property
    def module(self) -> TaskModule:
        """The task's package, with its file formats, scoring and smoke-data generator."""
        return _task_package(self.name, self.folder)

    @property
    def notebook_path(self) -> Path:
        """`notebook.ipynb` in the task folder if there is one, else `<name>.ipynb` in the book
        root's notebooks/ if it is there, else the package's (the checkout's notebooks/, or the
        copy a wheel carries)."""
        own = self.folder / "notebook.ipynb"
        if own.exists():
            return own
        book_root = NOTEBOOKS / f"{self.name}.ipynb"
        return book_root if book_root.exists() else PACKAGED_NOTEBOOKS / f"{self.name}.ipynb"

    @property
    def card_path(self) -> Path:
        return self.folder / "README.md"


@cache
def _task_package(name: str, folder: Path) -> ModuleType:
    """A task's package, imported and checked against `TaskModule` (one-line error if not)."""
    if folder.parent == BUILT_IN:
        package = importlib.import_module(f"kluebook.tasks.{name}")
    else:
        package = _import_folder(name, folder)
    missing = [member for member in TASK_INTERFACE if not callable(getattr(package, member, None))]
    if missing:
        raise KluebookError(
            f"task {name!r} ({folder / '__init__.py'}) does not offer {', '.join(missing)}: "
            "its package must offer every function of kluebook.tasks.TaskModule"
        )
    return package


def _import_folder(name: str, folder: Path) -> ModuleType:
    """Import a task package that lives outside kluebook (found through KLUEBOOK_TASKS_PATH)."""
    module_name = f"kluebook_extra_tasks.{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(
        module_name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def task_folders() -> list[Path]:
    """The built-in task folders, then those under each KLUEBOOK_TASKS_PATH entry."""
    roots = [BUILT_IN]
    roots += [Path(p) for p in os.environ.get(EXTRA_TASKS_VARIABLE, "").split(os.pathsep) if p]
    return [folder for root in roots for folder in sorted(root.iterdir()) if _is_task(folder)]


def _is_task(folder: Path) -> bool:
    return folder.is_dir() and (folder / "task.yaml").is_file()


def load_task(folder: Path) -> Task:
    """The task of one folder, from its task.yaml."""
    with open(folder / "task.yaml", encoding="utf-8") as handle:
        entry = yaml.safe_load(handle)
    try:
        return Task(
            name=folder.name,
            folder=folder,
            title=entry["title"],
            predicts=entry["predicts"],
            order=entry.get("order", 1000),
            version=entry["version"],
            hub_config=entry.get("hub_config", folder.name),
            hub_task_type=entry.get("hub_task_type", "other"),
            files=dict(entry["files"]),
            metrics=tuple(Metric(**m) for m in entry["metrics"]),
            selection_metric=entry["selection_metric"],
            recipe=entry.get("recipe", {}),
            smoke_recipe=entry.get("smoke", {}),
            smoke_floor=entry["smoke_floor"],
            predictions=entry["predictions"],
            switches=_switches(entry.get("switches", {})),
            smoke_data=entry.get("smoke_data", {}),
            smoke_cost_s=float(entry.get("smoke_cost_s", 0.0)),
        )
    except (KeyError, TypeError) as error:
        raise KluebookError(
            f"{folder / 'task.yaml'}: missing or malformed field {error}"
        ) from error


def _switches(entries: dict) -> dict:
    """The `switches` of a task.yaml, checked: choices with the official value first, the smoke
    profile's value among them, and what the switch does."""
    for name, switch in entries.items():
        if not switch.get("choices") or switch.get("smoke") not in switch["choices"]:
            raise KeyError(f"switches.{name}: choices, with smoke among them")
        if not switch.get("does"):
            raise KeyError(f"switches.{name}.does")
    return entries


@cache
def _all_tasks(search_path: str) -> dict[str, Task]:
    tasks = {}
    for folder in task_folders():
        if folder.name in tasks:
            raise KluebookError(f"two tasks are called {folder.name!r}: {folder}")
        tasks[folder.name] = load_task(folder)
    return dict(sorted(tasks.items(), key=lambda item: (item[1].order, item[0])))


def all_tasks() -> dict[str, Task]:
    """Every registered task, in the order of the KLUE tables (added tasks after them)."""
    return _all_tasks(os.environ.get(EXTRA_TASKS_VARIABLE, ""))


def get_task(name: str) -> Task:
    """The registered task called `name`, or a one-line error listing the known ones."""
    tasks = all_tasks()
    if name not in tasks:
        raise KluebookError(f"unknown task {name!r}; known tasks: {', '.join(tasks)}")
    return tasks[name]


def available_tasks() -> list[str]:
    """Tasks whose notebook exists, i.e. that the runner can execute."""
    return [name for name, task in all_tasks().items() if task.notebook_path.exists()]
