"""The whole pipeline on the offline default, in a scratch copy of the book: runs recorded,
a failing run recorded as failed, the book built, and a rebuild that executes nothing."""

import json
import os
import subprocess
import sys

import pytest

from kluebook.book import copy_sources

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    root = copy_sources(tmp_path_factory.mktemp("book"))
    broken = root / "broken-model"
    broken.mkdir()
    (broken / "config.json").write_text('{"model_type": "not-a-model"}')
    return root


def kluebook(root, *args):
    env = {**os.environ, "KLUEBOOK_ROOT": str(root)}
    return subprocess.run(
        [sys.executable, "-c", "from kluebook.cli import main; main()", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
    )


def test_a_failing_run_is_recorded_as_failed_and_the_others_go_on(scratch):
    result = kluebook(
        scratch,
        "run",
        "--tasks",
        "ynat",
        "--seeds",
        "1",
        "--quiet",
        "--models",
        f"kluebook/tiny-roberta,{scratch / 'broken-model'}",
    )
    assert result.returncode == 1, result.stderr
    assert "1 succeeded, 0 skipped (up to date), 1 failed" in result.stdout
    results = scratch / "results" / "smoke" / "ynat"
    good = json.loads((results / "kluebook--tiny-roberta-seed1.json").read_text())
    assert good["status"] == "succeeded"
    assert good["metrics"]["macro_f1"] > 60  # generated data is learnable; chance is ~14
    assert good["counts"] == {"train": 1400, "dev": 350}
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
    bad = json.loads(next(p for p in results.glob("*broken-model*.json")).read_text())
    assert bad["status"] == "failed" and "metrics" not in bad and bad["error"]
    executed = sorted(p.name for p in (scratch / "book" / "runs" / "ynat").iterdir())
    assert executed == ["smoke-kluebook--tiny-roberta-seed1.ipynb"]


def test_the_book_builds_and_a_rebuild_executes_nothing(scratch):
    site = scratch / "site"
    result = kluebook(
        scratch,
        "book",
        "--tasks",
        "ynat",
        "--seeds",
        "1",
        "--quiet",
        "--models",
        "kluebook/tiny-roberta",
        "--path-output",
        str(site),
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "0 succeeded, 1 skipped (up to date), 0 failed" in result.stdout
    html = site / "_build" / "html"
    page = (html / "book" / "runs" / "ynat" / "smoke-kluebook--tiny-roberta-seed1.html").read_text()
    assert "Topic classification (YNAT): kluebook/tiny-roberta, smoke, seed 1" in page
    assert "<img" in page  # the plots were rendered from the executed outputs
    results_page = (html / "book" / "results.html").read_text()
    assert "tiny-roberta" in results_page and "85.73" in results_page
    assert "Park" in (html / "book" / "cite.html").read_text()
