"""A run's overrides (`--set name=value`, a matrix's `parameters`), typed by what a method's runs
of a task may be given: one pydantic model per method and task (`Method.overrides`, cached), its
fields the parameters of the method's notebook that the runner does not set, the method's own
(a fine-tuned run's recipe fields and its task's switches, each switch a `Literal` of its
choices) and `errata`. Every field is strict, so a valid value is kept as it was given (a
number stays the int or float it was, and a run's name prints it as before); a bad name or value
is one line naming it (`typed_overrides`)."""

import types
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from kluebook.common.errors import KluebookError
from kluebook.common.validation import first_problem


@dataclass(frozen=True)
class OverrideField:
    """A field of an overrides model: its type, the rule its values follow in the words that
    open the line refusing one ("learning_rate must be a number"), and its lowest value."""

    kind: Any
    rule: str
    at_least: int | None = None


class Overrides(BaseModel):
    """The base of every overrides model: only its fields, strictly typed."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def typed_field(name: str, annotation: Any) -> OverrideField:
    """A field of type `annotation` (int, float, bool, str, each or None), with its rule."""
    optional = get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(
        annotation
    )
    kinds = [a for a in get_args(annotation) if a is not type(None)] if optional else [annotation]
    kind = kinds[0] if len(kinds) == 1 else None
    # A float field takes an int as it is (`epochs=3` stays 3 in the run's name).
    typed = {float: int | float}.get(kind, kind) if kind is not None else annotation
    rules = {
        int: f"{name} must be an integer",
        float: f"{name} must be a number",
        bool: f"{name} is a switch: true or false",
        str: f"{name} must be text",
    }
    rule = rules.get(kind, f"{name} must be {annotation}")
    return OverrideField(typed | None if optional else typed, rule)


def whole_number_field(name: str) -> OverrideField:
    """A count of the notebook's (train_limit, dev_limit, shots): a whole number >= 0."""
    return OverrideField(int, f"{name} must be a whole number >= 0", at_least=0)


def choice_field(name: str, choices) -> OverrideField:
    """A switch: one of its `choices` (true or false for a switch of two booleans)."""
    words = ", ".join(map(str, choices))
    kind = bool if all(isinstance(c, bool) for c in choices) else Literal[tuple(choices)]
    return OverrideField(kind, f"recipe switch {name} must be one of {words}")


def overrides_model(name: str, fields: dict[str, OverrideField]) -> type[Overrides]:
    """The model named `name` with `fields`, each optional (a run sets only what it names)."""
    return create_model(
        name,
        __base__=Overrides,
        **{
            field: (spec.kind, Field(None, description=spec.rule, ge=spec.at_least))
            for field, spec in fields.items()
        },
    )


def typed_overrides(model: type[Overrides], task_name: str, given: dict) -> dict[str, Any]:
    """`given`, validated by `model`, in the order given; one line for a name it has not or a
    value of the wrong type or range."""
    try:
        typed = model.model_validate(given)
    except ValidationError as error:
        problem = first_problem(error)
        if problem.unknown:
            known = ", ".join(model.model_fields)
            raise KluebookError(
                f"unknown parameter {problem.name!r} for {task_name}; known: {known}"
            ) from None
        rule = model.model_fields[problem.name].description
        raise KluebookError(f"{rule}, got {given[problem.name]!r}") from None
    return {name: getattr(typed, name) for name in given}
