"""The prompted notebook run by hand, outside the runner, checks its parameters where they enter
its process, as the plan checks a run's: they become one typed `PromptedRun`, its template's
query fields and answer mode checked on one generated item, each problem one line."""

import json
import shutil

import pytest

from kluebook.common.errors import KluebookError
from kluebook.common.paths import PROMPTED_NOTEBOOK
from kluebook.tasks import get_task


def notebook_start() -> tuple[str, str]:
    """The prompted notebook's parameters cell and the cell that starts its run, as written."""
    cells = json.loads(PROMPTED_NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    start = next(source for source in code if "start_prompted_run(globals())" in source)
    return "".join(tagged[0]["source"]), start


def start_by_hand(**given) -> dict:
    """The notebook's start executed as a reader's kernel does, with `given` in place of the
    parameters cell's defaults (as papermill's `-p` gives them); its namespace."""
    parameters, start = notebook_start()
    namespace: dict = {}
    exec(parameters, namespace)  # the repository's own notebook
    namespace.update(given)
    exec(start, namespace)
    return namespace


@pytest.fixture
def fieldless(tmp_path, monkeypatch):
    """A task of the test's own (a copy of YNAT) whose template's query names a field its items
    do not have."""
    ynat = get_task("ynat").folder
    folder = tmp_path / "tasks" / "fieldless"
    shutil.copytree(ynat, folder, ignore=shutil.ignore_patterns("__pycache__", "prompts"))
    (folder / "prompts").mkdir()
    template = (ynat / "prompts" / "standard.yaml").read_text(encoding="utf-8")
    (folder / "prompts" / "standard.yaml").write_text(
        template.replace("{title}", "{headline}"), encoding="utf-8"
    )
    monkeypatch.setenv("KLUEBOOK_TASKS_PATH", str(tmp_path / "tasks"))
    monkeypatch.chdir(tmp_path)
    return "fieldless"


def test_a_template_lacking_a_field_fails_the_start_in_one_line_naming_it(fieldless):
    with pytest.raises(KluebookError) as refused:
        start_by_hand(task=fieldless)
    message = str(refused.value)
    assert message.startswith(
        "fieldless's template 'standard': the query names headline, which its items do not have"
    )
    assert "\n" not in message
    assert not (get_task(fieldless).folder.parent.parent / "outputs").exists()  # nothing started


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"shots": "5"}, "shots must be a whole number >= 0, got '5'"),
        ({"task": "ner", "mode": "rank"}, "mode=rank: ner has no closed answer set to rank"),
        ({"template": "loud"}, "template 'loud': no such template; known: brief, reworded"),
        ({"shots": 5, "train_limit": 3}, "shots=5 is more than the 3 train items"),
        ({"seed": "x"}, "seed: Input should be a valid integer"),
    ],
)
def test_a_bad_parameter_fails_the_start_in_one_line(tmp_path, monkeypatch, given, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(KluebookError) as refused:
        start_by_hand(**given)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_the_notebook_s_own_parameters_start_a_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = start_by_hand()
    run = namespace["run"]
    assert run.task.name == namespace["task"] and run.parameters["shots"] == 0
    assert namespace["template"].name == "standard"  # the start cell loaded it
