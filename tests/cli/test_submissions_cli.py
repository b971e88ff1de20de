"""`kluebook submissions check | score | verify` and the board in `kluebook report`: one line per
problem and a non-zero exit; the committed baselines pass their check and their records verify
against the real dev files; the report rescores only what changed."""

import json
import shutil
from pathlib import Path

import pytest
from support.submissions import make_submission

from kluebook.common.paths import CHECKOUT
from kluebook.tasks import get_task, task_module

SUBMISSIONS = (CHECKOUT or Path.cwd()) / "submissions"
BASELINES = ("majority-baseline", "tfidf-baseline", "next-eojeol-baseline")
REAL_DEV_FILES = (
    ("ynat-v1.1/ynat-v1.1_dev.json", "ynat-v1.1/ynat-v1.1_dev.partial.json"),
    ("klue-sts-v1.1/klue-sts-v1.1_dev.json",),
    ("klue-nli-v1.1/klue-nli-v1.1_dev.json",),
    ("klue-ner-v1.1/klue-ner-v1.1_dev.tsv",),
    ("klue-dp-v1.1/klue-dp-v1.1_dev.tsv",),
)


@pytest.fixture(scope="module")
def real_data(klue_file) -> Path:
    for relatives in REAL_DEV_FILES:
        found = klue_file(*relatives)
    return found.parents[1]


def test_help_describes_the_commands(kluebook, book_sources):
    result = kluebook(book_sources, "submissions", "--help")
    assert result.returncode == 0
    for command in ("check", "score", "verify"):
        assert command in result.stdout
    result = kluebook(book_sources, "submissions", "check", "--help")
    assert "submission.yaml" in result.stdout and "Hugging Face" in result.stdout


def test_check_prints_one_line_per_problem_and_fails(kluebook, book_sources, tmp_path):
    folder = tmp_path / "Bad Slug"
    folder.mkdir()
    (folder / "submission.yaml").write_text("model: x\nextra: 1\n")
    (folder / "ynat.jsonl").write_text('{"guid": "x", "label": "정치"}\n')
    result = kluebook(
        book_sources, "submissions", "check", str(folder), "--data-dir", str(tmp_path)
    )
    assert result.returncode == 1 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("Bad Slug: 'Bad Slug': a submission folder's name")
    assert "Bad Slug: submission.yaml: missing field 'link'" in lines
    assert "Bad Slug: submission.yaml: unknown field 'extra'" in lines
    assert lines[-1].startswith("Bad Slug: ynat.jsonl: no ynat dev file")
    assert list(folder.iterdir()) != [] and not (tmp_path / "_derived").exists()


@pytest.mark.realdata
def test_the_committed_baselines_pass_their_check(kluebook, book_sources, real_data):
    paths = [str(SUBMISSIONS / slug) for slug in BASELINES]
    result = kluebook(book_sources, "submissions", "check", *paths, "--data-dir", str(real_data))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(": ok ") == 9


@pytest.mark.realdata
def test_the_committed_records_verify_and_a_tampered_one_fails(
    kluebook, book_sources, real_data, tmp_path
):
    derived_against = json.loads((SUBMISSIONS / "_derived" / "tfidf-baseline.json").read_text())
    for task in derived_against["tasks"].values():
        if not (real_data / task["gold_file"]).is_file():
            pytest.skip(f"the records were derived against {task['gold_file']}, not here")
    board = tmp_path / "submissions"
    shutil.copytree(SUBMISSIONS / "tfidf-baseline", board / "tfidf-baseline")
    shutil.copytree(SUBMISSIONS / "_derived", board / "_derived")
    command = ("submissions", "verify", str(board / "tfidf-baseline"), "--data-dir", str(real_data))
    result = kluebook(book_sources, *command)
    assert result.returncode == 0, result.stderr
    record = board / "_derived" / "tfidf-baseline.json"
    data = json.loads(record.read_text())
    data["tasks"]["nli"]["intervals"]["accuracy"]["low"] = 50.0
    record.write_text(json.dumps(data))
    result = kluebook(book_sources, *command)
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        "differs: tfidf-baseline.tasks.nli.intervals.accuracy.low: recorded 50.0, derived "
    )


def test_score_writes_the_record_once(kluebook, book_sources, tmp_path):
    task = get_task("sts")
    data = tmp_path / "data"
    records = task_module(task).generate(seed=4, **task.smoke_data)["dev"]
    task_module(task).write_official(
        records, data / "klue-sts-v1.1" / "klue-sts-v1.1_dev.partial.json"
    )
    folder = tmp_path / "submissions" / "gold"
    folder.mkdir(parents=True)
    (folder / "submission.yaml").write_text(
        "model: gold\nlink: https://example.org\nparameters: 0\nmethod: other\n"
        "training_data: none\ndev_data_used: true\ntool: test\ntool_version: '1'\n"
        "predictions_license: CC0-1.0\ndate: 2026-12-07\n"
    )
    gold = task_module(task).gold_predictions(
        task_module(task).read_official(data / "klue-sts-v1.1" / "klue-sts-v1.1_dev.partial.json"),
        {},
    )
    (folder / "sts.jsonl").write_text("".join(json.dumps(row) + "\n" for row in gold))
    command = ("submissions", "score", str(folder), "--data-dir", str(data))
    first = kluebook(book_sources, *command)
    assert first.returncode == 0, first.stderr
    assert first.stdout == "gold: sts pearsonr 100.00, f1 100.00 (rescored)\n"
    record = tmp_path / "submissions" / "_derived" / "gold.json"
    written = record.stat().st_mtime_ns
    again = kluebook(book_sources, *command)
    assert again.stdout == "gold: sts pearsonr 100.00, f1 100.00 (unchanged)\n"
    assert record.stat().st_mtime_ns == written


def test_report_rescores_the_changed_submission_and_refuses_a_failing_one(
    kluebook, _pristine_book, tmp_path
):
    """`kluebook report` in a book root: a new submission is rescored and its record written
    once; the committed baselines, whose dev files are not in this data folder, are shown as
    committed; a submission that fails its check is one warning and no record."""
    root = Path(shutil.copytree(_pristine_book, tmp_path / "book"))
    task = get_task("sts")
    data = tmp_path / "data"
    gold_path = data / "klue-sts-v1.1" / "klue-sts-v1.1_dev.partial.json"
    records = task_module(task).generate(seed=4, **task.smoke_data)["dev"]
    task_module(task).write_official(records, gold_path)
    rows = task_module(task).gold_predictions(task_module(task).read_official(gold_path), {})
    make_submission(root / "submissions" / "gold", {"sts": rows})
    make_submission(root / "submissions" / "short", {"sts": rows[1:]})
    env = {"KLUEBOOK_DATA_DIR": str(data)}
    first = kluebook(root, "report", env=env)
    assert first.returncode == 0, first.stderr
    assert "wrote submissions/_derived/gold.json" in first.stdout.splitlines()
    (warning,) = [line for line in first.stderr.splitlines() if "submission" in line]
    assert warning.startswith("warning: submission short: does not pass its check (1 problems;")
    assert warning.endswith("; left out of the board")
    assert not (root / "submissions" / "_derived" / "short.json").exists()
    record = root / "submissions" / "_derived" / "gold.json"
    assert json.loads(record.read_text())["tasks"]["sts"]["official"]["pearsonr"] == 100.0
    written = record.stat().st_mtime_ns
    again = kluebook(root, "report", env=env)
    assert again.returncode == 0, again.stderr
    assert not [line for line in again.stdout.splitlines() if "_derived" in line]
    assert record.stat().st_mtime_ns == written
