"""A run's training procedure in words, from its resolved recipe.

The task notebooks show these sentences (when dev is scored, when training stops, how batches
are padded and drawn) and the recipe's values as they were used, so that no page says
something its own recipe does not do. The sentences are CommonMark, as a notebook's Markdown
output is rendered (no MyST roles).
"""

from kluebook.tasks import Task
from kluebook.training.recipes import Recipe


def value_text(value) -> str:
    """A recipe value as it was used: integers as integers, floats at full precision (the
    shortest text that reads back as the same float, in scientific notation below 1e-4)."""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def recipe_values(recipe: Recipe) -> dict[str, str]:
    """Every value of the recipe, the task's switches included, as `value_text` writes it."""
    return {name: value_text(value) for name, value in recipe.as_dict().items()}


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def training_procedure(task: Task, recipe: Recipe, unit: str) -> str:
    """The sentences on how `recipe` trains `task`: evaluation points and the checkpoint kept,
    the epochs and early stopping, padding and the batch order. `unit` names one input
    ("headline", "pair", "window")."""
    label = next(
        (m.label for m in task.metrics if m.key == recipe.selection_metric),
        recipe.selection_metric,
    )
    count = recipe.evals_per_epoch
    if recipe.eval_schedule == "lightning":
        when = (
            f"{_times(count)} per epoch, after every 1/{count} of an epoch's batches, counted "
            "inside each epoch as the official code (PyTorch Lightning 1.1) counted them"
            if count > 1
            else "once per epoch, at its end, as in the official code"
        )
    else:
        every = f"every 1/{count} of an epoch's" if count > 1 else "after each epoch's worth of"
        when = (
            f"{_times(count)} per epoch, {every} optimizer steps counted from the start of "
            "training as the Hugging Face Trainer counts them, and after the last step"
        )
    epochs = f"{value_text(recipe.epochs)} epoch{'' if recipe.epochs == 1 else 's'}"
    stopping = (
        f"Training runs {epochs}, without early stopping."
        if recipe.early_stopping_patience is None
        else f"Training runs up to {epochs} and stops early after "
        f"{recipe.early_stopping_patience} evaluations in a row without a new best dev {label}."
    )
    tokens = f"`max_length` ({recipe.max_length} tokens)"
    padding = (
        f"Every {unit} is padded to {tokens}, as in the official code."
        if recipe.pad_to_max_length
        else f"Batches are padded to their longest {unit}, where the official code pads every "
        f"{unit} to {tokens}."
    )
    order = (
        "Training batches are grouped by length (examples of similar length in one batch), "
        "where the official code draws them in uniform random order."
        if recipe.group_by_length
        else "Training batches are drawn in uniform random order, as in the official code."
    )
    return " ".join(
        [
            f"Dev {label} is measured {when}; the checkpoint with the best dev {label} is kept "
            "and reloaded at the end.",
            stopping,
            padding,
            order,
        ]
    )
