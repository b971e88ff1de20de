"""Runs a researcher can trust, move and publish, in a scratch copy of the book: an overridden
run beside the default one, records without machine paths that another clone at another path
reuses, two runners at once, and paper records made with a local stand-in checkpoint that the
book renders without executing anything."""

import json
import shutil
import sys
from subprocess import PIPE

import pytest

from kluebook.data.loading import GENERATOR_VERSION
from kluebook.tasks import get_task
from kluebook.training.tiny_model import build_tiny_model

pytestmark = pytest.mark.slow
LIMITS = ["--set", "train_limit=200", "--set", "dev_limit=60"]
DEFAULT = "kluebook--tiny-roberta-dev_limit=60,train_limit=200-seed1.json"
TUNED = "kluebook--tiny-roberta-dev_limit=60,learning_rate=0.002,train_limit=200-seed1.json"
RUN = ["run", "--tasks", "ynat", "--seeds", "1", "--quiet", *LIMITS]


def records_under(root, profile="smoke"):
    folder = root / "results" / profile / "ynat"
    return {p.name: json.loads(p.read_text()) for p in folder.glob("*.json")}


@pytest.fixture(scope="module")
def book(tmp_path_factory, new_book, kluebook):
    """A book root where ynat ran with the default recipe and with another learning rate."""
    root = new_book(tmp_path_factory.mktemp("first-clone"))
    default = kluebook(root, *RUN)
    tuned = kluebook(root, *RUN, "--set", "learning_rate=0.002")
    for result in (default, tuned):
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return root


def test_a_default_and_an_overridden_run_coexist_as_two_rows(kluebook, book):
    found = records_under(book)
    assert set(found) == {DEFAULT, TUNED}  # every override is spelled out in the name
    assert found[TUNED]["recipe"]["learning_rate"] == 0.002
    assert found[TUNED]["overrides"]["learning_rate"] == 0.002
    assert found[DEFAULT]["recipe"]["learning_rate"] == 1e-3
    assert kluebook(book, "report").returncode == 0
    data = json.loads((book / "book/_generated/results.json").read_text())
    rows = [a for a in data["aggregates"] if a["model"] == "kluebook/tiny-roberta"]
    assert len(rows) == 2
    assert sum("learning_rate=0.002" in row["config"] for row in rows) == 1
    markdown = (book / "book/_generated/results.md").read_text()
    table = markdown.split('<div id="klue-table_fallback">')[1]  # the plain table
    assert table.count("<code>kluebook/tiny-roberta</code>") == 2


def test_records_and_executed_notebooks_carry_no_path_of_the_machine(book):
    written = [*book.glob("results/**/*.json*"), *book.glob("book/runs/**/*.ipynb")]
    assert len(written) >= 6
    for path in written:
        text = path.read_text()
        assert str(book) not in text, path
        assert sys.prefix not in text, path


def test_a_copy_at_another_path_reuses_every_run(kluebook, book, tmp_path):
    moved = tmp_path / "second-clone"
    shutil.copytree(book, moved, symlinks=True)
    again = kluebook(moved, *RUN)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "0 succeeded, 1 skipped (up to date), 0 failed" in again.stdout


def test_two_runners_at_once_run_a_run_once(kluebook, book):
    args = ["run", "--tasks", "ynat", "--seeds", "5", "--quiet", *LIMITS]
    first, second = (kluebook.start(book, *args, stdout=PIPE, stderr=PIPE) for _ in range(2))
    outputs = [process.communicate(timeout=900) for process in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outputs
    summaries = sorted(stdout.strip().splitlines()[-1] for stdout, _ in outputs)
    assert summaries == [
        "0 succeeded, 1 skipped (up to date), 0 failed",
        "1 succeeded, 0 skipped (up to date), 0 failed",
    ]
    assert any("waiting: another runner" in stdout for stdout, _ in outputs)
    record = records_under(book)[DEFAULT.replace("seed1", "seed5")]
    assert record["status"] == "succeeded"


def test_paper_records_of_a_stand_in_checkpoint_render_without_running(kluebook, book):
    task = get_task("ynat")
    data_dir = book / f".cache/data/generated-v{GENERATOR_VERSION}"
    titles = [r["title"] for r in json.loads((data_dir / task.files["train"]).read_text())]
    shutil.copytree(build_tiny_model(titles), book / "standin-roberta")
    paper = kluebook(
        book,
        "run",
        "--profile",
        "paper",
        "--tasks",
        "ynat",
        "--models",
        "standin-roberta",
        "--data-source",
        "official",
        "--data-dir",
        f".cache/data/generated-v{GENERATOR_VERSION}",
        "--seeds",
        "1",
        "--quiet",
        *LIMITS,
    )
    assert paper.returncode == 0, paper.stdout[-2000:] + paper.stderr[-2000:]
    (record,) = records_under(book, "paper").values()
    assert record["model"].startswith("standin-roberta@")  # named by its files, not its path
    assert record["model_revision"] == f"local folder: {record['model']}"
    assert record["recipe"]["learning_rate"] == 5e-5  # the official recipe, not the smoke one
    site = book / "site"
    built = kluebook(book, "book", "--no-run", "--path-output", str(site))
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert "kluebook run" not in built.stdout + built.stderr  # the runner never started
    html = site / "_build/html"
    assert "standin-roberta" in (html / "book/results.html").read_text()
    page = html / "book/runs/ynat" / (record["notebook"].split("/")[-1].replace(".ipynb", ".html"))
    config = record["config"].replace(",", ", ")
    assert f"{task.title}: {record['model']}, paper, {config}, seed 1" in page.read_text()
