"""A ninth task added as a folder, with no shared file edited: a copy of the YNAT folder renamed
`toy`, found through KLUEBOOK_TASKS_PATH, is listed, run, reported and scored."""

import json
import shutil

import nbformat
import pytest
import yaml

from kluebook.data.loading import GENERATOR_VERSION
from kluebook.tasks import card_path, get_task, notebook_path

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def toy(tmp_path_factory, new_book):
    """A book root and a folder of extra tasks holding `toy`, a renamed copy of YNAT."""
    root = new_book(tmp_path_factory.mktemp("book"))
    tasks_path = tmp_path_factory.mktemp("extra-tasks")
    ynat = get_task("ynat")
    folder = tasks_path / "toy"
    shutil.copytree(ynat.folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    entry = yaml.safe_load((folder / "task.yaml").read_text(encoding="utf-8"))
    entry.update(
        title="Toy topics (TOY)",
        order=9,
        files={"train": "toy/toy_train.json", "dev": "toy/toy_dev.json"},
    )
    (folder / "task.yaml").write_text(yaml.safe_dump(entry, allow_unicode=True), encoding="utf-8")
    card = card_path(ynat).read_text(encoding="utf-8").replace(ynat.title, "Toy topics (TOY)", 1)
    (folder / "README.md").write_text(card, encoding="utf-8")
    notebook = nbformat.read(notebook_path(ynat), as_version=4)
    for cell in notebook.cells:
        cell.source = cell.source.replace('start_run("ynat"', 'start_run("toy"')
    nbformat.write(notebook, folder / "notebook.ipynb")
    return root, tasks_path


def on_path(tasks_path) -> dict[str, str]:
    """The environment that finds the extra tasks in `tasks_path`."""
    return {"KLUEBOOK_TASKS_PATH": str(tasks_path)}


def test_the_task_list_shows_the_new_task_as_ready(kluebook, toy):
    root, tasks_path = toy
    result = kluebook(root, "tasks", env=on_path(tasks_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].split()[:4] == ["toy", "Toy", "topics", "(TOY)"]
    assert result.stdout.rstrip().endswith("ready")


def test_the_runner_report_and_scorer_pick_it_up(kluebook, toy):
    root, tasks_path = toy
    limits = ["--set", "train_limit=300", "--set", "dev_limit=100"]
    run = kluebook(
        root, "run", "--tasks", "toy", "--seeds", "1", "--quiet", *limits, env=on_path(tasks_path)
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (path,) = (root / "results/smoke/toy").glob("*.json")
    record = json.loads(path.read_text())
    assert record["status"] == "succeeded" and record["task"] == "toy"

    report = kluebook(root, "report", env=on_path(tasks_path))
    assert report.returncode == 0, report.stderr
    results = (root / "book/_generated/results.md").read_text()
    assert 'title="Toy topics (TOY)">TOY</a>' in results  # a column of the KLUE table
    assert (root / "book/_generated/methods/toy.md").read_text().startswith("(methods-toy)=")
    landing = (root / "book/_generated/tasks/toy.md").read_text()
    assert landing.startswith("(task-toy)=\n# Toy topics (TOY)")
    toc = yaml.safe_load((root / "book/_generated/_toc.yml").read_text())
    tasks = next(p for p in toc["parts"] if p["caption"] == "Tasks and their runs")
    toy = tasks["chapters"][-1]
    assert toy["file"] == "book/_generated/tasks/toy"
    assert [s["file"] for s in toy["sections"]] == [record["notebook"].removesuffix(".ipynb")]

    dev = json.loads(
        (root / f".cache/data/generated-v{GENERATOR_VERSION}/toy/toy_dev.json").read_text()
    )
    gold = root / "toy_dev_first_100.json"
    gold.write_text(json.dumps(dev[:100], ensure_ascii=False))
    scored = kluebook(
        root,
        "score",
        "toy",
        "--gold",
        str(gold),
        "--pred",
        record["predictions"],
        env=on_path(tasks_path),
    )
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout) == record["metrics"]


def test_without_the_extra_path_the_task_is_unknown(kluebook, toy):
    root, _ = toy
    result = kluebook(root, "score", "toy", "--pred", "x.jsonl", env=on_path(""))
    assert result.returncode == 2
    assert "unknown task 'toy'" in result.stderr
