"""The task registry (configs/tasks.yaml) and the task modules it points to.

A task module (`kluebook.tasks.<name>`) holds everything specific to one task's data:
- `read_official(path) -> list[dict]`: an official file's records, validated, in official shape;
- `write_official(records, path)`: the inverse, used for the generated smoke data;
- `from_hub(rows) -> list[dict]`: Hugging Face `klue/klue` rows converted to the official shape;
- `gold_keys(records)` and `prediction_key(row)`: how prediction lines match gold examples;
- `score(records, predictions) -> dict`: the official metrics of a predictions file.
"""

import importlib
from dataclasses import dataclass
from functools import cache
from types import ModuleType

import yaml

from kluebook.errors import KluebookError
from kluebook.paths import CONFIGS, ROOT


@dataclass(frozen=True)
class Metric:
    key: str
    label: str


@dataclass(frozen=True)
class Task:
    name: str
    title: str
    version: int
    hub_config: str
    notebook: str
    files: dict[str, str]
    metrics: tuple[Metric, ...]
    selection_metric: str
    recipe: dict
    smoke_recipe: dict

    @property
    def module(self) -> ModuleType:
        """The task module with this task's file formats and scoring."""
        return importlib.import_module(f"kluebook.tasks.{self.name}")

    @property
    def notebook_path(self):
        return ROOT / self.notebook

    def recipe_for(self, model: str, size: str) -> dict:
        """The official recipe (SPEC §12) for a checkpoint, defaults filled in."""
        recipe = dict(_registry()["recipe_defaults"])
        recipe["selection_metric"] = self.selection_metric
        recipe.update(self.recipe.get("base", {}))
        if size == "large":
            recipe.update(self.recipe.get("large", {}))
        recipe.update(self.recipe.get("models", {}).get(model, {}))
        return recipe


@cache
def _registry() -> dict:
    with open(CONFIGS / "tasks.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@cache
def all_tasks() -> dict[str, Task]:
    """Every registered task, in registry order."""
    tasks = {}
    for name, entry in _registry()["tasks"].items():
        tasks[name] = Task(
            name=name,
            title=entry["title"],
            version=entry["version"],
            hub_config=entry["hub_config"],
            notebook=entry["notebook"],
            files=dict(entry["files"]),
            metrics=tuple(Metric(**m) for m in entry["metrics"]),
            selection_metric=entry["selection_metric"],
            recipe=entry.get("recipe", {}),
            smoke_recipe=entry.get("smoke", {}),
        )
    return tasks


def get_task(name: str) -> Task:
    """The registered task called `name`, or a one-line error listing the known ones."""
    tasks = all_tasks()
    if name not in tasks:
        raise KluebookError(f"unknown task {name!r}; known tasks: {', '.join(tasks)}")
    return tasks[name]


def available_tasks() -> list[str]:
    """Tasks whose notebook exists, i.e. that the runner can execute."""
    return [name for name, task in all_tasks().items() if task.notebook_path.exists()]
