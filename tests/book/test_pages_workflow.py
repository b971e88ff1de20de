"""The Pages workflow publishes the executed book: it installs a CPU build of the pinned torch,
fetches the official KLUE files and verifies every submission against them, then builds with
the runs (no `--no-run`); the site its own build commands make in a fresh clone has run pages
for all eight tasks, and its verify step fails on a tampered number, naming the cell. The hub
being unreachable here, the real files of KLUEBOOK_DATA_DIR stand in for the fetch."""

import glob
import json
import re
import shlex
import subprocess

import pytest
import yaml

from kluebook.common.paths import CHECKOUT, KLUE_DATA
from kluebook.tasks import all_tasks

WORKFLOW = CHECKOUT / ".github" / "workflows" / "pages.yml"
# The official dev files the committed submissions were scored against.
BOARD_DEV_FILES = (
    "klue-sts-v1.1/klue-sts-v1.1_dev.json",
    "klue-nli-v1.1/klue-nli-v1.1_dev.json",
    "klue-ner-v1.1/klue-ner-v1.1_dev.tsv",
    "klue-dp-v1.1/klue-dp-v1.1_dev.tsv",
)


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


def test_the_workflow_fetches_the_official_files_and_verifies_before_it_builds():
    steps = [shlex.split(c)[1:3] for c in build_commands() if c.startswith("kluebook")]
    assert steps[:2] == [["data", "fetch"], ["submissions", "verify"]]
    assert steps[-1][0] == "book"


def _clone(tmp_path):
    if not (CHECKOUT / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(CHECKOUT), str(clone)], check=True)
    return clone


def _run_step(kluebook, clone, command: str):
    """One `kluebook` step of the workflow in the clone, its globs expanded as bash does; the
    fetch is stood in for by the real files of KLUEBOOK_DATA_DIR (the hub is unreachable)."""
    args = shlex.split(command)[1:]
    if args[:2] == ["data", "fetch"]:
        missing = [f for f in BOARD_DEV_FILES if not (KLUE_DATA / f).is_file()]
        if missing:
            pytest.skip(f"real KLUE file {missing[0]} not in KLUEBOOK_DATA_DIR ({KLUE_DATA})")
        (clone / "data").mkdir(exist_ok=True)
        (clone / "data" / "klue_benchmark").symlink_to(KLUE_DATA.resolve())
        return None
    args = [
        arg
        for given in args
        for arg in (sorted(glob.glob(given, root_dir=clone)) if "*" in given else [given])
    ]
    env = {"PYTHONPATH": str(clone / "src"), "KLUEBOOK_DATA_DIR": None}
    return kluebook(clone, *args, env=env)


@pytest.mark.realdata
def test_the_workflow_verify_step_passes_and_fails_on_a_tampered_number(kluebook, tmp_path):
    clone = _clone(tmp_path)
    fetch, verify = [c for c in build_commands() if c.startswith("kluebook")][:2]
    _run_step(kluebook, clone, fetch)
    done = _run_step(kluebook, clone, verify)
    assert done.returncode == 0, done.stderr
    slugs = sorted(p.name for p in (clone / "submissions").iterdir() if p.name != "_derived")
    assert done.stdout.splitlines() == [
        f"{slug}: every number of its record derived anew and equal" for slug in slugs
    ]
    record = clone / "submissions" / "_derived" / "majority-baseline.json"
    data = json.loads(record.read_text())
    data["tasks"]["dp"]["official"]["las"] += 1.0
    record.write_text(json.dumps(data))
    done = _run_step(kluebook, clone, verify)
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("differs: majority-baseline.tasks.dp.official.las: recorded ")


@pytest.mark.slow
def test_the_workflow_build_commands_in_a_fresh_clone_give_run_pages_for_every_task(
    kluebook, tmp_path
):
    """The committed state, cloned, built with the workflow's `kluebook` steps (the installs
    are this test's own environment: the same constraints, with the clone's package code)."""
    clone = _clone(tmp_path)
    builds = [c for c in build_commands() if c.startswith("kluebook")]
    assert builds
    for command in builds:
        done = _run_step(kluebook, clone, command)
        if done is not None:
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    site = clone / "_build" / "html"
    missing = [
        task for task in all_tasks() if not list((site / "book" / "runs" / task).glob("*.html"))
    ]
    assert not missing, f"no run page for {missing}"
    assert (site / "book" / "results.html").is_file()
