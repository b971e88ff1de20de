"""Recipes: the official fine-tuning hyper-parameters of each task and checkpoint size, the smoke
profile's changes for the tiny stand-in, and a run's overrides, resolved into one `Recipe`.

A recipe also holds the switches: one field for each place where kluebook can compute something
other than the official code did (book/deviations.md). Their defaults are the official
behaviour, quirks included, so the paper profile follows the official code unless a task's
task.yaml says otherwise; the smoke profile keeps the behaviour it had before the switches
existed, and its speed-ups.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from kluebook.common.errors import KluebookError
from kluebook.task_types.task import Task
from kluebook.training.checkpoints import model_entry
from kluebook.training.speed import SWITCHES as SPEED_SWITCHES

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
    # The switches as the smoke profile had them before they existed (book/deviations.md).
    "eval_schedule": "trainer",
    "early_stopping_patience": None,
    "lr_schedule": "trainer",
    "lr_schedule_gpus": 1,
    "optimizer": "adamw_torch",
    "group_by_length": True,
    "pad_to_max_length": False,
    "added_token_init": "mean",
    # Two speed switches that change only the rounding (book/methods.md): on the CPU they take
    # some 10% off the smoke book's training.
    "fused_adamw": True,
    "sdpa": True,
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
# The switches, each at the official code's behaviour (book/deviations.md has one row each).
SWITCH_DEFAULTS = {
    "eval_schedule": "lightning",
    "early_stopping_patience": None,
    "lr_schedule": "official",
    "lr_schedule_gpus": 1,
    "optimizer": "adamw_transformers3",
    "group_by_length": False,
    "pad_to_max_length": False,
    "added_token_init": "normal",
}
# The values each switch accepts (None: any positive integer, or None where the default is None).
SWITCH_CHOICES = {
    "eval_schedule": ("lightning", "trainer"),
    "lr_schedule": ("official", "trainer"),
    "optimizer": ("adamw_transformers3", "adamw_torch"),
    "group_by_length": (False, True),
    "pad_to_max_length": (False, True),
    "added_token_init": ("normal", "mean"),
}


# The numeric fields: (int or float, lowest value, whether it is allowed).
FIELD_RANGES = {
    "learning_rate": (float, 0, False),
    "batch_size": (int, 1, True),
    "eval_batch_size": (int, 1, True),
    "epochs": (float, 0, False),
    "warmup_ratio": (float, 0, True),
    "weight_decay": (float, 0, True),
    "max_length": (int, 1, True),
    "adam_epsilon": (float, 0, False),
    "max_grad_norm": (float, 0, False),
    "evals_per_epoch": (int, 1, True),
    "gradient_accumulation": (int, 1, True),
    "micro_batches": (int, 1, True),
}
KIND_WORDS = {int: "an integer", float: "a number"}


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
    # A memory knob that keeps the recipe: each batch of `batch_size` is computed as this many
    # smaller ones whose gradients are accumulated; the effective batch, the step count and the
    # evaluation points stay the recipe's.
    micro_batches: int = 1
    # Speed switches, each a deviation from the official fp32 recipe (kluebook.training.speed): off
    # unless a run or the smoke recipe (SMOKE_RECIPE) turns them on.
    tf32: bool = False
    bf16: bool = False
    fp16: bool = False
    fused_adamw: bool = False
    sdpa: bool = False
    # Switches (book/deviations.md); the defaults are the official code's behaviour.
    eval_schedule: str = (
        "lightning"  # lightning: dev scored at Lightning 1.1's points; trainer: HF's
    )
    early_stopping_patience: int | None = None  # stop after this many evaluations without a gain
    lr_schedule: str = "official"  # official: the baseline's float step count; trainer: HF's
    lr_schedule_gpus: int = 1  # the GPU count the official step count was divided by
    optimizer: str = "adamw_transformers3"  # the AdamW of transformers 3.5.1, or torch's
    group_by_length: bool = False  # training batches of similar lengths instead of uniform random
    pad_to_max_length: bool = False  # pad every batch to max_length, as the baseline did
    added_token_init: str = "normal"  # added token rows: N(0, initializer_range), or mean-resized
    # The task's own switches (the `switches` of its task.yaml), as (name, value) pairs.
    task_switches: tuple[tuple[str, object], ...] = ()

    def __post_init__(self):
        for name, (kind, low, low_included) in FIELD_RANGES.items():
            value = getattr(self, name)
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not numeric or (kind is int and not isinstance(value, int)):
                raise KluebookError(f"{name} must be {KIND_WORDS[kind]}, got {value!r}")
            if value < low or (value == low and not low_included):
                bound = ">=" if low_included else ">"
                raise KluebookError(f"{name} must be {bound} {low}, got {value!r}")
        if not 0 <= self.warmup_ratio <= 1:
            raise KluebookError(f"warmup_ratio must be between 0 and 1, got {self.warmup_ratio!r}")
        for name in SPEED_SWITCHES:
            if not isinstance(getattr(self, name), bool):
                value = getattr(self, name)
                raise KluebookError(f"{name} is a switch: true or false, got {value!r}")
        if self.fp16 and self.bf16:
            raise KluebookError("fp16 and bf16 are two autocast precisions: turn on one of them")
        if self.batch_size % self.micro_batches:
            raise KluebookError(
                f"micro_batches {self.micro_batches} must divide batch_size {self.batch_size}"
            )
        if self.micro_batches > 1 and self.group_by_length:
            raise KluebookError(
                "micro_batches keeps the recipe's batches only when they are drawn uniformly: "
                "not with group_by_length"
            )
        for name, choices in SWITCH_CHOICES.items():
            if getattr(self, name) not in choices:
                raise KluebookError(
                    f"recipe switch {name} must be one of {', '.join(map(str, choices))}, "
                    f"got {getattr(self, name)!r}"
                )
        patience = self.early_stopping_patience
        if patience is not None and (not isinstance(patience, int) or patience < 1):
            raise KluebookError(f"early_stopping_patience must be None or >= 1, got {patience!r}")
        if not isinstance(self.lr_schedule_gpus, int) or self.lr_schedule_gpus < 1:
            raise KluebookError(f"lr_schedule_gpus must be >= 1, got {self.lr_schedule_gpus!r}")

    def as_dict(self) -> dict:
        """Every parameter, the task's switches included, as one flat dict."""
        values = asdict(self)
        values.update(values.pop("task_switches"))
        return values

    def switches(self) -> dict:
        """The switches, shared and the task's own, and their values."""
        return {name: getattr(self, name) for name in SWITCH_DEFAULTS} | dict(self.task_switches)


def recipe_parameters(task: Task) -> tuple[str, ...]:
    """Every recipe field a run may set (`--set name=value`) without its notebook declaring it:
    the hyper-parameters, the memory and speed knobs and the switches, the task's own included."""
    return (*(f.name for f in fields(Recipe) if f.name != "task_switches"), *task.switches)


def switch_parameters(task: Task) -> tuple[str, ...]:
    """The switches a run of `task` may set (`--set name=value`) without its notebook declaring
    them: the speed switches and the recipe's switches, shared and the task's own."""
    return (*SPEED_SWITCHES, *SWITCH_DEFAULTS, *task.switches)


def resolve_recipe(task: Task, model: str, profile: str, overrides: dict) -> Recipe:
    """The official recipe for `model` (smoke: adjusted for the tiny model), then `overrides`.

    Overrides that are None keep the recipe's value, so notebook parameters can default to None.
    """
    if profile not in PROFILES:
        raise KluebookError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    values = official_recipe(task, model)
    # The task's own switches: official value first in their choices, unless its recipe sets one.
    own = {name: values.pop(name, switch.choices[0]) for name, switch in task.switches.items()}
    if profile == "smoke":
        values.update(SMOKE_RECIPE)
        own.update({name: switch.smoke for name, switch in task.switches.items()})
        _check_entry(task, "smoke", task.smoke)
        for key, value in task.smoke.items():
            (own if key in own else values)[key] = value
    known = {f.name for f in fields(Recipe)} - {"task_switches"}
    for key, value in overrides.items():
        if key not in known and key not in own:
            raise KluebookError(f"unknown recipe parameter {key!r}")
        if value is not None:
            (own if key in own else values)[key] = value
    for name, value in own.items():
        _check_choice(task, name, value)
    recipe = Recipe(
        **{k: v for k, v in values.items() if k in known}, task_switches=tuple(own.items())
    )
    if recipe.fused_adamw and recipe.optimizer != "adamw_torch":
        raise KluebookError(
            f"fused_adamw=true needs optimizer=adamw_torch: {recipe.optimizer} has no fused "
            "kernel; set optimizer=adamw_torch too, or fused_adamw=false"
        )
    return recipe


def official_recipe(task: Task, model: str) -> dict:
    """The official recipe of `task` for a checkpoint: defaults, the task's base values, then
    those for large checkpoints and for that checkpoint alone."""
    values = {**RECIPE_DEFAULTS, "selection_metric": task.selection_metric, **SWITCH_DEFAULTS}
    sections = {"base": task.recipe.base}
    if model_entry(model)["size"] == "large":
        sections["large"] = task.recipe.large
    sections[f"models.{model}"] = task.recipe.models.get(model, {})
    for where, entries in sections.items():
        _check_entry(task, f"recipe.{where}", entries)
        values.update(entries)
    return values


def _check_entry(task: Task, where: str, entries: dict) -> None:
    """The recipe values of a task.yaml section name recipe fields or the task's switches."""
    known = set(recipe_parameters(task))
    unknown = [key for key in entries if key not in known]
    if unknown:
        raise KluebookError(
            f"{task.folder / 'task.yaml'}: {where}: unknown recipe parameter {unknown[0]!r}"
        )


def scoring_switches(task: Task, settings: dict) -> dict:
    """The task's own switches given to `kluebook score` or `kluebook compare` (`--set
    name=value`), each checked against its choices: what `score` reads of a run's recipe."""
    for name, value in settings.items():
        if name not in task.switches:
            own = ", ".join(task.switches) or "none"
            raise KluebookError(f"{name} is not a switch of {task.name} (its switches: {own})")
        _check_choice(task, name, value)
    return dict(settings)


def record_switches(task: Task, recipe: dict) -> dict:
    """The task's own switches among a run record's `recipe` values: what its scoring read."""
    return {name: recipe[name] for name in task.switches if name in recipe}


def _check_choice(task: Task, name: str, value: object) -> None:
    choices = task.switches[name].choices
    if value not in choices:
        raise KluebookError(
            f"recipe switch {name} must be one of {', '.join(map(str, choices))}, got {value!r}"
        )
