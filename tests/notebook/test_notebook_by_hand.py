"""A task notebook run by hand, as book/reproduce.md shows it (papermill from the checkout's
root), writes nothing into the checkout that git would show."""

import subprocess
import sys

import pytest

from kluebook.common.paths import CHECKOUT

pytestmark = pytest.mark.slow


def test_a_notebook_run_by_hand_leaves_the_checkout_clean(kluebook, tmp_path):
    if not (CHECKOUT / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(CHECKOUT), str(clone)], check=True)
    env = kluebook.environment(clone, {"PYTHONPATH": str(clone / "src")})
    (clone / "outputs").mkdir()  # the page's `mkdir -p outputs`
    small = ["-p", "train_limit", "100", "-p", "dev_limit", "40", "-p", "epochs", "1"]
    ran = subprocess.run(
        [sys.executable, "-m", "papermill", "notebooks/ynat.ipynb", "outputs/ynat.ipynb", *small],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert (clone / "outputs" / "ynat" / "predictions.jsonl").is_file()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout == ""
