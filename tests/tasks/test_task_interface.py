"""The task interface is one typed definition, `kluebook.tasks.TaskModule`, checked when a task's
package is imported: a folder that lacks part of it stops with a one-line error naming it."""

import shutil

import pytest

from kluebook.errors import KluebookError
from kluebook.tasks import EXTRA_TASKS_VARIABLE, TASK_INTERFACE, all_tasks, get_task


def test_the_interface_names_the_eight_functions_the_shared_code_calls():
    assert set(TASK_INTERFACE) == {
        "read_official",
        "write_official",
        "from_hub",
        "gold_keys",
        "prediction_key",
        "score",
        "generate",
        "gold_predictions",
    }


@pytest.mark.parametrize("name", list(all_tasks()))
def test_every_built_in_task_offers_it(name):
    module = get_task(name).module
    assert all(callable(getattr(module, member)) for member in TASK_INTERFACE)


def test_a_task_folder_that_lacks_a_function_is_named_in_a_one_line_error(tmp_path, monkeypatch):
    folder = tmp_path / "halftask"
    shutil.copytree(get_task("ynat").folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    init = folder / "__init__.py"
    init.write_text(
        init.read_text(encoding="utf-8").replace("    gold_predictions,\n", ""), encoding="utf-8"
    )
    monkeypatch.setenv(EXTRA_TASKS_VARIABLE, str(tmp_path))
    task = get_task("halftask")  # the registry entry loads; its package is checked on import
    with pytest.raises(KluebookError) as caught:
        task.module  # noqa: B018
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("task 'halftask' (") and "does not offer gold_predictions:" in message
