"""Each notebook's parameters cell is its method's parameters model (`Method.parameters`): the
same names, types and defaults; a notebook or a model changed alone fails here."""

import ast
import types
import typing

import papermill
import pytest

from kluebook.methods.interface import NotebookParameters
from kluebook.methods.registry import all_methods, runner_parameters
from kluebook.tasks import all_tasks

CASES = sorted(
    {
        (method.name, task.name, str(method.notebook(task)))
        for method in all_methods()
        for task in all_tasks().values()
        if method.notebook(task).is_file()
    }
)


def declared_type(annotation) -> str:
    """The name papermill infers for a field of this annotation (`float | None`: float)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        (annotation,) = [a for a in typing.get_args(annotation) if a is not type(None)]
    return annotation.__name__


def model_cell(model: type[NotebookParameters], task: str) -> dict[str, tuple]:
    """Each field's type and default (`{task}` in a default: the task's name); a required
    field's default is the notebook's own (an example for a run by hand: the runner sets it)."""
    return {
        name: (
            declared_type(field.annotation),
            *(
                ()
                if field.is_required()
                else [
                    field.default.format(task=task)
                    if isinstance(field.default, str)
                    else field.default
                ]
            ),
        )
        for name, field in model.model_fields.items()
    }


def notebook_cell(path: str, model: type[NotebookParameters]) -> dict[str, tuple]:
    required = {name for name, field in model.model_fields.items() if field.is_required()}
    return {
        name: (
            p["inferred_type_name"],
            *(() if name in required else [ast.literal_eval(p["default"])]),
        )
        for name, p in papermill.inspect_notebook(path).items()
    }


@pytest.mark.parametrize(("method", "task", "notebook"), CASES)
def test_a_notebook_declares_its_methods_parameters_with_their_types_and_defaults(
    method, task, notebook
):
    (model,) = [m.parameters for m in all_methods() if m.name == method]
    assert notebook_cell(notebook, model) == model_cell(model, task)


def test_every_task_notebook_and_the_prompted_one_are_read():
    tasks = {task for method, task, _ in CASES if method == "fine-tuned"}
    assert tasks == set(all_tasks()) and len({n for *_, n in CASES}) == len(tasks) + 1


def test_the_runner_sets_the_shared_parameters_and_a_prompted_runs_server():
    assert runner_parameters() == {
        *("model", "profile", "data_source", "data_dir", "seed", "output_dir"),
        *("task", "base_url", "served_model", "server_options"),
    }
