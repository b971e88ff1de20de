"""The Pages workflow publishes the executed book: it installs a CPU build of the pinned torch,
then builds with the runs (no `--no-run`), and the site its own build commands make in a fresh
clone has run pages for all eight tasks."""

import re
import shlex
import subprocess

import pytest
import yaml

from kluebook.common.paths import CHECKOUT
from kluebook.tasks import all_tasks

WORKFLOW = CHECKOUT / ".github" / "workflows" / "pages.yml"


def build_commands() -> list[str]:
    """The `run:` lines of the workflow's build job, in order."""
    steps = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["build"]["steps"]
    return [step["run"].strip() for step in steps if "run" in step]


def test_the_workflow_installs_cpu_torch_first_and_builds_with_the_runs():
    commands = build_commands()
    installs = [c for c in commands if c.startswith("pip install")]
    assert len(installs) == 2
    torch, package = installs
    assert "--index-url https://download.pytorch.org/whl/cpu" in torch
    # The version it installs is the pinned one, read from constraints.txt.
    pinned = re.search(r"^torch==(\S+)$", (CHECKOUT / "constraints.txt").read_text(), re.M)
    version = subprocess.run(
        ["bash", "-c", re.search(r'"torch==\$\((.*)\)"', torch).group(1)],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert pinned and version == pinned.group(1)
    assert package.startswith("pip install -c constraints.txt -e")
    builds = [c for c in commands if c.startswith("kluebook")]
    assert builds and all("--no-run" not in c for c in builds)
    assert any(shlex.split(c)[1] == "book" for c in builds)


@pytest.mark.slow
def test_the_workflow_build_commands_in_a_fresh_clone_give_run_pages_for_every_task(
    kluebook, tmp_path
):
    """The committed state, cloned, built with the workflow's `kluebook` steps (the installs
    are this test's own environment: the same constraints, with the clone's package code)."""
    if not (CHECKOUT / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(CHECKOUT), str(clone)], check=True)
    builds = [c for c in build_commands() if c.startswith("kluebook")]
    assert builds
    for command in builds:
        args = shlex.split(command)[1:]
        done = kluebook(clone, *args, env={"PYTHONPATH": str(clone / "src")})
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    site = clone / "_build" / "html"
    missing = [
        task for task in all_tasks() if not list((site / "book" / "runs" / task).glob("*.html"))
    ]
    assert not missing, f"no run page for {missing}"
    assert (site / "book" / "results.html").is_file()
