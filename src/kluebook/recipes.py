"""Recipes: the official fine-tuning hyper-parameters of each task and checkpoint size, the smoke
profile's changes for the tiny stand-in, and a run's overrides, resolved into one `Recipe`."""

from dataclasses import asdict, dataclass, fields

from kluebook.checkpoints import model_entry
from kluebook.errors import KluebookError
from kluebook.tasks import Task

PROFILES = ("smoke", "paper")
# The tiny stand-in starts from random weights: it needs a higher learning rate and more
# epochs than a pretrained checkpoint. These replace the official values in the smoke profile,
# and the `smoke` entry of a task's task.yaml replaces these.
SMOKE_RECIPE = {
    "learning_rate": 1e-3,
    "epochs": 6,
    "warmup_ratio": 0.1,
    "max_length": 64,
    "evals_per_epoch": 1,
}
# The official values a task's recipe does not set (KLUE-baseline's argument defaults).
RECIPE_DEFAULTS = {
    "learning_rate": 5e-5,
    "batch_size": 32,
    "eval_batch_size": 64,
    "epochs": 4,
    "warmup_ratio": 0.0,
    "weight_decay": 0.0,
    "max_length": 128,
    "adam_epsilon": 1e-8,
    "max_grad_norm": 1.0,
    "evals_per_epoch": 4,
}


@dataclass(frozen=True)
class Recipe:
    """Every training hyper-parameter of a run."""

    learning_rate: float
    batch_size: int
    eval_batch_size: int
    epochs: float
    warmup_ratio: float
    weight_decay: float
    max_length: int
    adam_epsilon: float
    max_grad_norm: float
    evals_per_epoch: int
    selection_metric: str
    gradient_accumulation: int = 1
    # Speed switches, each a deviation from the official fp32 recipe (kluebook.speed): off
    # unless a run or a task's smoke recipe turns them on.
    tf32: bool = False
    bf16: bool = False
    fused_adamw: bool = False
    sdpa: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


def resolve_recipe(task: Task, model: str, profile: str, overrides: dict) -> Recipe:
    """The official recipe for `model` (smoke: adjusted for the tiny model), then `overrides`.

    Overrides that are None keep the recipe's value, so notebook parameters can default to None.
    """
    if profile not in PROFILES:
        raise KluebookError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    values = official_recipe(task, model)
    if profile == "smoke":
        values.update(SMOKE_RECIPE)
        values.update(task.smoke_recipe)
    known = {f.name for f in fields(Recipe)}
    for key, value in overrides.items():
        if key not in known:
            raise KluebookError(f"unknown recipe parameter {key!r}")
        if value is not None:
            values[key] = value
    return Recipe(**{k: v for k, v in values.items() if k in known})


def official_recipe(task: Task, model: str) -> dict:
    """The official recipe of `task` for a checkpoint: defaults, the task's base values, then
    those for large checkpoints and for that checkpoint alone."""
    values = {**RECIPE_DEFAULTS, "selection_metric": task.selection_metric}
    values.update(task.recipe.get("base", {}))
    if model_entry(model)["size"] == "large":
        values.update(task.recipe.get("large", {}))
    values.update(task.recipe.get("models", {}).get(model, {}))
    return values
