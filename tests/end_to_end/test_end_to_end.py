"""The whole pipeline on the offline default, in a scratch copy of the book: every task
notebook runs on the smoke profile and learns, a failing run is recorded as failed while the
others go on, the book builds with every page, a rebuild executes nothing, and every figure
and table of every task's pages reads without sight (text alternatives, header cells, captions:
the browser test's plain-HTML check, on the one book here that has every task)."""

import json

import pytest
from conftest import load_script

from kluebook.common.paths import CHECKOUT
from kluebook.data.loading import GENERATOR_VERSION
from kluebook.tasks import available_tasks, get_task

pytestmark = pytest.mark.slow
TASKS = available_tasks()
accessibility = load_script(CHECKOUT / "benchmarks" / "accessibility.py")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory, new_book, kluebook):
    """A book root where every task ran once, plus one run of a broken model that fails."""
    root = new_book(tmp_path_factory.mktemp("book"))
    broken = root / "broken-model"
    broken.mkdir()
    (broken / "config.json").write_text('{"model_type": "not-a-model"}')
    models = f"kluebook/tiny-roberta,{broken}"
    first = kluebook(
        root, "run", "--tasks", "ynat", "--seeds", "1", "--quiet", "--models", models, "--jobs", "2"
    )
    rest = [t for t in TASKS if t != "ynat"]
    others = kluebook(
        root, "run", "--tasks", ",".join(rest), "--seeds", "1", "--quiet", "--jobs", "2"
    )
    return root, first, others


def record(root, task, model="kluebook--tiny-roberta"):
    return json.loads((root / "results/smoke" / task / f"{model}-seed1.json").read_text())


def test_a_failing_run_is_recorded_as_failed_and_the_others_go_on(scratch):
    root, first, _ = scratch
    assert first.returncode == 1, first.stderr
    assert "1 succeeded, 0 skipped (up to date), 1 failed" in first.stdout
    good = record(root, "ynat")
    assert good["status"] == "succeeded"
    sizes = get_task("ynat").smoke_data
    assert good["counts"] == {"train": sizes["train_size"], "dev": sizes["dev_size"]}
    assert {
        "best_checkpoint",
        "last_checkpoint",
        "data_checksum",
        "git_commit",
        "libraries",
        "device",
        "wall_time_s",
        "fingerprint",
        "model_revision",
    } <= good.keys()
    bad = json.loads(next((root / "results/smoke/ynat").glob("*broken-model*.json")).read_text())
    assert bad["status"] == "failed" and "metrics" not in bad and bad["error"]
    # Only the good run keeps its executed notebook (its page's source; the report renders it).
    executed = sorted(p.name for p in (root / "results/smoke/ynat").glob("*.ipynb"))
    assert executed == ["kluebook--tiny-roberta-seed1.ipynb"]


@pytest.mark.parametrize("task", TASKS)
def test_every_smoke_run_scores_well_above_chance(scratch, task):
    root, _, others = scratch
    assert others.returncode == 0, others.stdout[-2000:] + others.stderr[-2000:]
    floor = get_task(task).smoke_floor  # a score a pipeline that does not learn cannot reach
    metric = floor.metric
    result = record(root, task)
    assert result["status"] == "succeeded"
    assert result["metrics"][metric] > floor.value, result["metrics"]
    predictions = root / "results/smoke" / task / "kluebook--tiny-roberta-seed1.predictions.jsonl"
    assert predictions.read_text().count("\n") > 0


@pytest.mark.parametrize("task", TASKS)
def test_kluebook_score_gives_the_recorded_metrics_for_the_runs_predictions(
    kluebook, scratch, task
):
    root = scratch[0]
    result = record(root, task)
    gold = root / f".cache/data/generated-v{GENERATOR_VERSION}" / get_task(task).files["dev"]
    scored = kluebook(root, "score", task, "--gold", str(gold), "--pred", result["predictions"])
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout) == result["metrics"]


@pytest.fixture(scope="module")
def book(kluebook, scratch):
    """The book of the runs of `scratch` (the tiny model's), built twice: both commands' results
    and the html folder."""
    root, _, _ = scratch
    site = root / "site"
    args = ["--seeds", "1", "--quiet", "--models", "kluebook/tiny-roberta"]
    first = kluebook(root, "book", *args, "--path-output", str(site))
    again = kluebook(root, "book", *args, "--path-output", str(site))
    return first, again, site / "_build" / "html"


def test_the_book_builds_and_a_rebuild_executes_nothing(scratch, book):
    root, _, _ = scratch
    result, again, html = book
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert f"0 succeeded, {len(TASKS)} skipped (up to date), 0 failed" in result.stdout
    assert again.returncode == 0 and "(up to date: no page changed" in again.stdout
    for task in TASKS:
        page = html / "book" / "runs" / task / "smoke-kluebook--tiny-roberta-seed1.html"
        assert "<img" in page.read_text(), task  # figures rendered from the executed outputs
    ynat_page = (html / "book/runs/ynat/smoke-kluebook--tiny-roberta-seed1.html").read_text()
    assert "Topic classification (YNAT): kluebook/tiny-roberta, smoke, seed 1" in ynat_page
    results_page = (html / "book" / "results.html").read_text()
    ynat_score = record(root, "ynat")["metrics"]["macro_f1"]
    assert "tiny-roberta" in results_page and f"{ynat_score:.2f}" in results_page
    assert "Park" in (html / "book" / "cite.html").read_text()


def test_every_figure_of_every_task_has_a_text_alternative_and_every_table_headers(book):
    html = book[2]
    assert sorted(p.parent.name for p in (html / "book" / "runs").glob("*/*.html")) == sorted(TASKS)
    problems = accessibility.unreadable(html)
    assert not problems, "\n".join(problems)
