"""The fine-tuned method: a checkpoint fine-tuned on the task's train split by the task's own
notebook, with its profile's recipe (`kluebook.training.recipes`); the KLUE table ranks it."""

from pathlib import Path
from typing import ClassVar, get_type_hints

from pydantic import Field

from kluebook.methods.interface import RUNNER, Method, NotebookParameters, RunSettings
from kluebook.methods.overrides import OverrideField, choice_field, typed_field
from kluebook.tasks import notebook_path

FINE_TUNED = "fine-tuned"


class FineTunedRun(RunSettings):
    """A fine-tuned run: the shared fields and no others (its recipe's fields are overrides,
    checked against the recipe; no server)."""

    method_name = FINE_TUNED

    @classmethod
    def notebook_of(cls, task) -> Path:
        """The task's own notebook."""
        return notebook_path(task)


class FineTunedParameters(NotebookParameters):
    """A task notebook's parameters cell: the shared parameters and the recipe's, each None
    for the profile's value (`kluebook.training.recipes`)."""

    model: str = Field("kluebook/tiny-roberta", json_schema_extra=RUNNER)
    learning_rate: float | None = None
    batch_size: int | None = None
    epochs: float | None = None
    warmup_ratio: float | None = None
    max_length: int | None = None


# The recipe's parameters a task notebook declares (others a run may set undeclared).
RECIPE_PARAMETERS = tuple(
    n for n in FineTunedParameters.names() if n not in NotebookParameters.names()
)


class FineTuned(Method):
    name: ClassVar[str] = FINE_TUNED
    settings = FineTunedRun
    parameters = FineTunedParameters
    named_in_record = False  # a fine-tuned run's record is as records have always been
    ranked = True
    smoke_made = "fine-tuned"
    smoke_notice = (
        "This run fine-tuned a tiny randomly initialised model on data generated in the "
        "official formats. Its scores show that the pipeline works end to end; they say "
        "nothing about KLUE or about any released checkpoint."
    )

    def own_overrides(self, task) -> dict[str, OverrideField]:
        """The recipe's fields, of `Recipe`'s types (a switch: one of its choices), and the
        task's own switches, each one of its choices."""
        from kluebook.training.recipes import SWITCH_CHOICES, Recipe

        fields = {
            name: choice_field(name, SWITCH_CHOICES[name])
            if name in SWITCH_CHOICES
            else typed_field(name, kind)
            for name, kind in get_type_hints(Recipe).items()
            if name != "task_switches"
        }
        return fields | {name: choice_field(name, s.choices) for name, s in task.switches.items()}

    def check_parameters(self, task, extra: dict, models, profile: str) -> None:
        """The recipe checks its fields together (ranges, combinations), for each of the models
        of the profile."""
        from kluebook.training.recipes import recipe_parameters, resolve_recipe

        settable = recipe_parameters(task)
        recipe = {name: value for name, value in extra.items() if name in settable}
        for model in models:
            resolve_recipe(task, model, profile, recipe)
