"""The package as a student gets it: a wheel built from the repository, installed into a fresh
virtual environment and run from a folder that is not a checkout. `kluebook tasks`, `score` and
`run` work there, and everything a run writes lands under that folder.

What is reused, to keep this test offline and quick: the wheel is built with the setuptools of
the environment running the tests (no build isolation), and it is installed with `--no-deps`
into a new venv that sees this environment's site-packages through a `.pth` line (torch,
transformers, papermill, ... are not installed again). Only kluebook itself comes from the
wheel: the test checks that the venv imports it from its own site-packages.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from kluebook.book.templating import TEMPLATES
from kluebook.common.paths import CHECKOUT
from kluebook.tasks import all_tasks
from kluebook.tasks.ynat import data as ynat
from kluebook.tasks.ynat import synthetic

pytestmark = pytest.mark.slow
# What a fresh clone has that a build must not see (caches, local runs, other builds): names
# anywhere, and folders of the checkout by their path (src/kluebook has a data/ and a results/).
CACHES = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache"
)
NOT_SOURCES = {
    "build", "dist", "_build", ".cache", "results", "data", "outputs", "book/runs",
    "book/_generated",
}  # fmt: skip


def not_sources(root: Path):
    """A `shutil.copytree` ignore for a checkout at `root`."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        at = Path(folder).relative_to(root)
        local = {name for name in names if (at / name).as_posix() in NOT_SOURCES}
        return CACHES(folder, names) | local

    return ignore


RUN_NAME = "kluebook--tiny-roberta-dev_limit=40,train_limit=100-seed1"


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A venv with the wheel installed, its environment variables, and a folder to work in."""
    if CHECKOUT is None:
        pytest.skip("builds the wheel from a checkout of the repository")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "KLUEBOOK_ROOT", "KLUEBOOK_CACHE", "KLUEBOOK_TASKS_PATH"}
    }
    base = tmp_path_factory.mktemp("wheel")
    sources = base / "sources"
    shutil.copytree(CHECKOUT, sources, ignore=not_sources(CHECKOUT))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    wheel = subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", base / "wheels", sources],
        capture_output=True,
        text=True,
    )
    assert wheel.returncode == 0, wheel.stdout[-2000:] + wheel.stderr[-2000:]
    (built,) = (base / "wheels").glob("kluebook-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [*pip, "--python", python, "install", "--no-deps", "--ignore-installed", built],
        capture_output=True,
        text=True,
        env=env,
    )
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    assert "Successfully installed kluebook" in install.stdout, install.stdout[-2000:]
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # The dependencies: this environment's site-packages, after the venv's own (a plain path
    # line: the .pth files there, such as an editable kluebook, are not processed).
    reused = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "reuse-dependencies.pth").write_text("\n".join(sorted(reused)) + "\n")
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    work = base / "class"
    work.mkdir()
    return venv, site, env, work


def kluebook(installed, *args):
    venv, _, env, work = installed
    return subprocess.run(
        [venv / "bin" / "kluebook", *args], capture_output=True, text=True, env=env, cwd=work
    )


def test_the_venv_imports_kluebook_from_the_wheel(installed):
    venv, site, env, work = installed
    where = subprocess.run(
        [
            venv / "bin" / "python",
            "-c",
            "import kluebook.common.paths as p; print(p.PACKAGE, p.ROOT)",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
    )
    assert where.returncode == 0, where.stderr
    package, root = where.stdout.split()
    assert Path(package) == site / "kluebook"
    assert Path(root) == work  # not a checkout: the book root is the current directory
    assert (site / "kluebook" / "configs" / "smoke.yaml").is_file()
    notebooks = sorted(p.stem for p in (site / "kluebook" / "notebooks").glob("*.ipynb"))
    assert notebooks == sorted([*all_tasks(), "prompted"])  # one per task, one for prompted runs
    # The pages' HTML templates, which `kluebook report` renders.
    templates = sorted(p.name for p in (site / "kluebook" / "book" / "templates").glob("*.html"))
    assert templates == sorted(p.name for p in TEMPLATES.glob("*.html")) and templates


def test_tasks_lists_every_task_as_ready(installed):
    result = kluebook(installed, "tasks")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert [line.split()[0] for line in lines] == list(all_tasks())
    assert all(line.endswith("ready") for line in lines), result.stdout


def test_score_scores_a_predictions_file(installed):
    work = installed[3]
    dev = synthetic.generate(seed=3, train_size=1, dev_size=30)["dev"]
    ynat.write_official(dev, work / "ynat_dev.json")
    lines = [{"guid": r["guid"], "label": r["label"]} for r in dev]
    lines[0]["label"] = next(label for label in ynat.LABELS if label != dev[0]["label"])
    (work / "preds.jsonl").write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    score = ["score", "ynat", "--gold", "ynat_dev.json", "--pred", "preds.jsonl"]
    result = kluebook(installed, *score)
    assert result.returncode == 0, result.stderr
    assert 50 < json.loads(result.stdout)["macro_f1"] < 100


def test_run_writes_its_record_under_the_current_folder(installed):
    work = installed[3]
    args = ["--tasks", "ynat", "--seeds", "1", "--set", "train_limit=100", "--set", "dev_limit=40"]
    result = kluebook(installed, "run", *args, "--quiet")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "1 succeeded, 0 skipped (up to date), 0 failed" in result.stdout
    record = json.loads((work / "results/smoke/ynat" / f"{RUN_NAME}.json").read_text())
    assert record["status"] == "succeeded"
    assert record["counts"] == {"train": 100, "dev": 40}
    assert record.get("git_commit") is None  # a wheel from a folder: no commit to name
    assert (work / record["executed"]).is_file() and (work / record["predictions"]).is_file()
    assert record["notebook"] == f"book/runs/ynat/smoke-{RUN_NAME}.ipynb"  # `kluebook report`
    assert not (work / record["notebook"]).exists()  # renders it; the run only stores


def test_the_book_build_asks_for_a_checkout(installed):
    result = kluebook(installed, "book", "--no-run")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "checkout" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
