"""The contract every registered task keeps, checked over the whole registry: a task folder
copied to start a new task is held to the same rules without a test being written for it."""

import re
from pathlib import Path

import papermill
import pytest

import kluebook
from kluebook.common.errors import KluebookError
from kluebook.data.loading import HUB_SPLITS, generated_data_dir
from kluebook.notebook.steps import COMMON_PARAMETERS
from kluebook.scoring.predictions import score_predictions
from kluebook.tasks import all_tasks, card_path, notebook_path, task_module
from kluebook.training.recipes import resolve_recipe

TASKS = list(all_tasks().values())


@pytest.fixture(params=TASKS, ids=[t.name for t in TASKS])
def task(request):
    return request.param


@pytest.fixture(scope="module")
def generated():
    """Every task's generated data, keyed by task name."""
    return {t.name: task_module(t).generate(seed=0) for t in TASKS}


class TestTaskContract:
    def test_splits_round_trip_through_the_official_format(self, task, generated, tmp_path):
        """Generated files read back whole; the records read write back and read the same."""
        for role, records in generated[task.name].items():
            if role not in HUB_SPLITS:
                continue
            first, second = tmp_path / "first" / role, tmp_path / "second" / role
            task_module(task).write_official(records, first)
            read = task_module(task).read_official(first)
            assert len(read) == len(records), role
            task_module(task).write_official(read, second)
            assert task_module(task).read_official(second) == read, role

    def test_the_generator_is_deterministic_per_seed(self, task, generated):
        assert task_module(task).generate(seed=0) == generated[task.name]
        assert task_module(task).generate(seed=1)["dev"] != generated[task.name]["dev"]

    def test_gold_as_prediction_scores_the_maximum_on_every_metric(self, task, generated):
        dev = generated[task.name]["dev"]
        lines = task_module(task).gold_predictions(dev)
        scores = score_predictions(task, dev, lines)
        assert {m.key for m in task.metrics} <= scores.keys()
        assert scores == {key: pytest.approx(100.0) for key in scores}

    def test_another_tasks_file_is_rejected_with_a_one_line_error(self, task):
        for other in TASKS:
            if other.name == task.name:
                continue
            path = generated_data_dir(other) / other.files["dev"]
            with pytest.raises(KluebookError) as caught:
                task_module(task).read_official(path)
            assert "\n" not in str(caught.value), other.name

    def test_the_notebook_declares_the_common_parameters(self, task):
        declared = papermill.inspect_notebook(str(notebook_path(task)))
        assert set(COMMON_PARAMETERS) <= declared.keys()
        assert all(declared[name]["help"] for name in COMMON_PARAMETERS)

    def test_the_card_exists_and_is_titled_after_the_task(self, task):
        card = card_path(task).read_text(encoding="utf-8")
        assert card.startswith(f"# {task.title}\n")
        for section in ("## Metrics", "## Predictions file"):
            assert section in card

    def test_the_registry_entry_is_consistent(self, task):
        keys = [m.key for m in task.metrics]
        assert task.selection_metric in keys
        assert task.smoke_floor.metric in keys
        assert {"train", "dev"} <= task.files.keys()

    def test_its_switches_resolve_in_both_profiles_and_refuse_other_values(self, task):
        for name, switch in task.switches.items():
            paper = resolve_recipe(task, "klue/roberta-base", "paper", {})
            smoke = resolve_recipe(task, "kluebook/tiny-roberta", "smoke", {})
            assert paper.switches()[name] == switch.choices[0]
            assert smoke.as_dict()[name] == switch.smoke
            for value in switch.choices:
                chosen = resolve_recipe(task, "klue/roberta-base", "paper", {name: value})
                assert chosen.switches()[name] == value
            with pytest.raises(KluebookError, match=f"recipe switch {name} must be one of"):
                resolve_recipe(task, "klue/roberta-base", "paper", {name: "no-such-value"})

    def test_its_switches_are_on_the_deviations_page(self, task):
        page = (Path(kluebook.__file__).parents[2] / "book" / "deviations.md").read_text("utf-8")
        for name, switch in task.switches.items():
            row = f"| `{name}` |"
            assert row in page, name
            values = page.split(row, 1)[1].split("\n", 1)[0]
            assert f"`{switch.choices[0]}` | `{switch.smoke}` |" in values, name
            assert f"## `{name}`:" in page, name


def test_shared_modules_name_no_task():
    """Only a task's folder knows it: the shared modules hold no task name as a word."""
    names = "|".join(t.name for t in TASKS)
    words = "|".join(t.name for t in TASKS if t.name != "re")  # `re` is also a module and prefix
    pattern = re.compile(rf"\b({words})\b|\b({names})_|[\"'`]({names})[\"'`]", re.IGNORECASE)
    package = Path(kluebook.__file__).parent
    shared = sorted(
        path
        for path in package.rglob("*.py")
        if path.relative_to(package).parts[0] != "tasks" or path.parent.name == "tasks"
    )
    found = [
        f"{path.relative_to(package)}:{number}: {line.strip()}"
        for path in shared
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert len(shared) > 10 and not found, "\n".join(found)


def test_a_switch_of_another_task_is_an_unknown_parameter():
    owners = [t for t in TASKS if t.switches]
    other = next(t for t in TASKS if not t.switches)
    with pytest.raises(KluebookError, match="unknown recipe parameter"):
        resolve_recipe(other, "klue/roberta-base", "paper", {next(iter(owners[0].switches)): 1})
