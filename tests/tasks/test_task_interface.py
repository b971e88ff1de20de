"""The task interface is one typed definition, `kluebook.task_types.interface.TaskModule`, read from
a task folder's data.py and synthetic.py and checked when first asked for; a task.yaml is checked
by a schema that refuses unknown keys. Either problem stops with one line naming the file."""

import pickle
import shutil

import pytest
import yaml

from kluebook.common.errors import KluebookError
from kluebook.task_types.task import ResamplingUnit, SmokeFloor, Switch, Task
from kluebook.tasks import EXTRA_TASKS_VARIABLE, all_tasks, get_task, task_module, task_package
from kluebook.tasks.interface import REQUIRED, TASK_INTERFACE, TaskModule


def test_the_interface_names_the_functions_the_shared_code_calls():
    assert set(REQUIRED) == {
        "read_official",
        "write_official",
        "from_hub",
        "score",
        "generate",
        "gold_predictions",
    }
    # Optional, with a fallback: keyed by guid; the official score on every resample; the
    # ranked choices of a prompted line; a submitted line's values checked before scoring.
    assert set(TASK_INTERFACE) - set(REQUIRED) == {
        "gold_keys",
        "prediction_key",
        "resampling_statistics",
        "top_answers",
        "check_line",
    }


@pytest.mark.parametrize("name", list(all_tasks()))
def test_every_built_in_task_offers_it_from_its_modules(name):
    task = get_task(name)
    interface = task_module(task)
    assert isinstance(interface, TaskModule)
    assert interface.score.__module__ == f"kluebook.tasks.{name}.data"
    assert interface.generate.__module__ == f"kluebook.tasks.{name}.synthetic"
    assert task_package(task).__name__ == f"kluebook.tasks.{name}"


def test_a_task_is_its_typed_entry_and_a_copy_reaches_the_same_code():
    task = get_task("ner")
    assert isinstance(task, Task) and isinstance(task.smoke_floor, SmokeFloor)
    boundary = task.switches["ner_boundary_tags"]
    assert isinstance(boundary, Switch) and boundary.choices[0] == "model"
    assert task.smoke_floor.metric in {metric.key for metric in task.metrics}
    copy = pickle.loads(pickle.dumps(task))  # as a Dask or Slurm worker gets it
    assert copy == task and task_module(copy) is task_module(task)


def test_the_resampling_statistics_come_from_data_py_where_a_task_has_them():
    with_statistics = {n for n, t in all_tasks().items() if task_module(t).resampling_statistics}
    assert with_statistics == {"ynat", "sts", "nli", "ner", "re", "dp"}
    # The two tasks without them average their official score over each unit instead.
    for name in ("mrc", "wos"):
        unit = get_task(name).resampling_unit
        assert unit.mean_of_keys == tuple(m.key for m in get_task(name).metrics)


def _copy(tmp_path, monkeypatch, name="halftask"):
    folder = tmp_path / name
    shutil.copytree(get_task("ynat").folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv(EXTRA_TASKS_VARIABLE, str(tmp_path))
    return folder


def _edit_entry(folder, change):
    entry = yaml.safe_load((folder / "task.yaml").read_text(encoding="utf-8"))
    change(entry)
    (folder / "task.yaml").write_text(yaml.safe_dump(entry, allow_unicode=True), encoding="utf-8")


def test_a_task_folder_that_lacks_a_function_is_named_in_a_one_line_error(tmp_path, monkeypatch):
    folder = _copy(tmp_path, monkeypatch)
    data = folder / "data.py"
    text = data.read_text(encoding="utf-8")
    data.write_text(text.replace("def gold_predictions(", "def _gold_predictions("), "utf-8")
    task = get_task("halftask")  # the registry entry loads; its interface is checked when read
    with pytest.raises(KluebookError) as caught:
        task_module(task)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("task 'halftask' (")
    assert "does not offer gold_predictions in data.py" in message


def test_a_function_that_takes_other_arguments_is_refused(tmp_path, monkeypatch):
    folder = _copy(tmp_path, monkeypatch, "oldtask")
    data = folder / "data.py"
    text = data.read_text(encoding="utf-8")
    start = text.index("def score(")
    end = text.index(") -> dict", start)
    data.write_text(text[:start] + "def score(records, predictions" + text[end:], "utf-8")
    with pytest.raises(KluebookError, match=r"data\.score does not take the interface.s arguments"):
        task_module(get_task("oldtask"))


def test_a_folder_without_init_py_is_a_task_too(tmp_path, monkeypatch):
    folder = _copy(tmp_path, monkeypatch, "bare")
    (folder / "__init__.py").unlink()
    task = get_task("bare")
    dev = task_module(task).generate(seed=0, train_size=1, dev_size=5)["dev"]
    lines = task_module(task).gold_predictions(dev)
    predictions = {task_module(task).prediction_key(line): line for line in lines}
    assert task_module(task).score(dev, predictions) == {"macro_f1": 100.0}


def test_an_unknown_task_yaml_key_is_named_with_its_file(tmp_path, monkeypatch):
    folder = _copy(tmp_path, monkeypatch, "typo")
    _edit_entry(folder, lambda entry: entry.update(resampling_unti={"name": "headline"}))
    with pytest.raises(KluebookError) as caught:
        all_tasks()
    message = str(caught.value)
    assert "\n" not in message
    assert message == f"{folder / 'task.yaml'}: unknown field 'resampling_unti'"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda e: e["recipe"]["base"].update(warmup_ration=0.1), None),
        (lambda e: e["recipe"].update(larg={}), "unknown field 'recipe.larg'"),
        (lambda e: e["smoke_floor"].update(metrc="macro_f1"), "unknown field 'smoke_floor.metrc'"),
        (lambda e: e.pop("version"), "missing field 'version'"),
        (lambda e: e.update(version="two"), "version: Input should be a valid integer"),
        (
            lambda e: e.update(selection_metric="accuracy"),
            "selection_metric: 'accuracy' is not a metric key",
        ),
        (
            lambda e: e["resampling_unit"].update(mean_of_keys=["f1"]),
            "resampling_unit.mean_of_keys: 'f1' is not a metric key",
        ),
        (
            lambda e: e.update(switches={"s": {"choices": ["a"], "smoke": "b", "does": "x"}}),
            "switches.s: smoke value 'b' is not one of the choices",
        ),
        (lambda e: e["files"].pop("dev"), "files: needs the roles train and dev"),
    ],
)
def test_a_malformed_task_yaml_is_one_line_naming_the_field(tmp_path, monkeypatch, change, problem):
    folder = _copy(tmp_path, monkeypatch, "broken")
    _edit_entry(folder, change)
    if problem is None:  # a recipe key is checked against the recipe's fields when resolved
        from kluebook.training.recipes import resolve_recipe

        task = get_task("broken")
        with pytest.raises(KluebookError) as caught:
            resolve_recipe(task, "klue/roberta-base", "paper", {})
        problem = "recipe.base: unknown recipe parameter 'warmup_ration'"
    else:
        with pytest.raises(KluebookError) as caught:
            all_tasks()
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"{folder / 'task.yaml'}: {problem}")


def test_every_field_keeps_its_default(tmp_path, monkeypatch):
    folder = _copy(tmp_path, monkeypatch, "minimal")
    optional = ("order", "hub_config", "hub_task_type", "resampling_unit", "recipe", "smoke")
    _edit_entry(folder, lambda entry: [entry.pop(key) for key in (*optional, "smoke_data")])
    task = get_task("minimal")
    assert (task.order, task.hub_config, task.hub_task_type) == (1000, "minimal", "other")
    assert task.resampling_unit == ResamplingUnit(name="record", group_by="guid")
    assert (task.recipe.base, task.recipe.large, task.recipe.models) == ({}, {}, {})
    assert (task.smoke, task.smoke_data, task.switches) == ({}, {}, {})


def test_the_prompted_track_files_are_not_task_yaml_keys(tmp_path, monkeypatch):
    folder = _copy(tmp_path, monkeypatch, "prompted")
    (folder / "prompts").mkdir(exist_ok=True)
    (folder / "prompts" / "standard.yaml").write_text("instruction: x\n", encoding="utf-8")
    (folder / "prompting.py").write_text('"""Prompting."""\n', encoding="utf-8")
    assert task_module(get_task("prompted")).score


def test_the_command_line_prints_a_task_yaml_typo_in_one_line(
    kluebook, book_sources, tmp_path, monkeypatch
):
    folder = _copy(tmp_path, monkeypatch, "typo")
    _edit_entry(folder, lambda entry: entry.update(resampling_unti={"name": "headline"}))
    result = kluebook(book_sources, "tasks", env={EXTRA_TASKS_VARIABLE: str(tmp_path)})
    assert result.returncode == 2
    assert result.stderr == f"error: {folder / 'task.yaml'}: unknown field 'resampling_unti'\n"
