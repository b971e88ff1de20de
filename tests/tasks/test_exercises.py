"""The teaching cells of every task notebook: a first cell that installs kluebook where it is
missing (Colab), and 2-3 exercises at the end whose solutions run.

The solution cells (tagged `solution`) promise to read only what the notebook has by then:
`train_records`, `dev_records`, `prediction_lines` (the scored predictions), `metrics` and
`run.score`. Here they are executed in order against a small slice of the task's generated data,
once with predictions equal to the gold and once with a degraded copy, under the recipe of each
profile (the paper profile's switches change what a predictions line must hold: NER's
`boundary`), so a solution that stops working fails this (fast) test; the end-to-end tests run
them inside the real notebooks.
"""

import re
from functools import partial
from types import SimpleNamespace

import nbformat
import pytest

from kluebook.common.paths import ROOT
from kluebook.common.repository import configured_url, install_line
from kluebook.scoring.predictions import score_predictions
from kluebook.tasks import all_tasks, notebook_path, task_module
from kluebook.training.recipes import resolve_recipe
from kluebook.training.tiny_model import TINY_MODEL

TASKS = list(all_tasks().values())
INSTALL = install_line(configured_url(ROOT))


@pytest.fixture(params=TASKS, ids=[t.name for t in TASKS])
def task(request):
    return request.param


def cells(task):
    return nbformat.read(notebook_path(task), as_version=4).cells


def test_the_first_cell_installs_kluebook_only_where_it_is_missing(task):
    first = cells(task)[0]
    assert first.cell_type == "code"
    assert "remove-cell" in first.metadata.get("tags", [])  # not shown in the book
    lines = first.source.splitlines()
    code = [line.strip() for line in lines if not line.startswith("#")]
    assert code == ["try:", "import kluebook  # noqa: F401", "except ImportError:", INSTALL]


def test_the_notebook_ends_with_exercises_and_collapsed_solutions(task):
    notebook = cells(task)
    markdown = "\n".join(c.source for c in notebook if c.cell_type == "markdown")
    labels = re.findall(r"```\{exercise\}[^\n]*\n:label: (ex-[\w-]+)\n", markdown)
    assert 2 <= len(labels) <= 3
    assert labels == [f"ex-{task.name}-{n}" for n in range(1, len(labels) + 1)]
    for label in labels:
        assert f"```{{solution-start}} {label}\n:class: dropdown\n```" in markdown
    assert markdown.count("```{solution-end}") == len(labels)
    exercises_at = next(i for i, c in enumerate(notebook) if c.source.startswith("## Exercises"))
    finish = max(i for i, c in enumerate(notebook) if "finish_run(" in c.source)
    assert exercises_at > finish  # the exercises come after the run is recorded
    solutions = [i for i, c in enumerate(notebook) if "solution" in c.metadata.get("tags", [])]
    assert solutions and min(solutions) > exercises_at


def degraded(lines: list[dict]) -> list[dict]:
    """A copy of the gold prediction lines with every third one wrong, by field."""
    labels = sorted({line["label"] for line in lines if "label" in line}) or [""]
    worse = []
    for index, line in enumerate(lines):
        line = dict(line)
        if index % 3 == 0:
            if "label" in line:
                line["label"] = labels[(labels.index(line["label"]) + 1) % len(labels)]
            if "probs" in line:
                from kluebook.tasks.re.data import RELATIONS

                line["probs"] = [
                    0.5 if name == line["label"] else 0.5 / (len(RELATIONS) - 1)
                    for name in RELATIONS
                ]
            if "score" in line:
                line["score"] = 5.0 - line["score"]
            if "tags" in line:
                line["tags"] = ["O"] * len(line["tags"])
            if "heads" in line:
                line["heads"] = [0] * len(line["heads"])
            if "answer" in line:
                line["answer"] = "" if line["answer"] else "모르겠다"
            if "state" in line:
                line["state"] = []
        worse.append(line)
    return worse


@pytest.fixture(scope="module")
def small_data():
    """Each task's generated data, cut short: (train, dev) by task name."""
    data = {}
    for task in TASKS:
        generated = task_module(task).generate(seed=0)
        data[task.name] = generated["train"][:200], generated["dev"][:40]
    return data


@pytest.fixture(params=[("smoke", TINY_MODEL), ("paper", "klue/roberta-base")], ids=lambda p: p[0])
def profile_recipe(task, request):
    """The recipe of a run of `task` in each profile."""
    profile, model = request.param
    return resolve_recipe(task, model, profile, {})


@pytest.mark.parametrize("predictions", ["gold", "degraded"])
def test_the_solutions_run_on_small_generated_data(
    task, small_data, predictions, profile_recipe, capsys
):
    train, dev = small_data[task.name]
    switches = profile_recipe.switches()
    lines = task_module(task).gold_predictions(dev, switches)
    if predictions == "degraded":
        lines = degraded(lines)
    run = SimpleNamespace(
        task=task, recipe=profile_recipe, score=partial(score_predictions, task, switches=switches)
    )
    namespace = {
        "train_records": train,
        "dev_records": dev,
        "prediction_lines": lines,
        "metrics": run.score(dev, lines),
        "run": run,
    }
    solutions = [c for c in cells(task) if "solution" in c.metadata.get("tags", [])]
    assert len(solutions) >= 2
    for index, cell in enumerate(solutions):
        code = compile(cell.source, f"{task.name} solution {index + 1}", "exec")
        exec(code, namespace)
    assert capsys.readouterr().err == ""
