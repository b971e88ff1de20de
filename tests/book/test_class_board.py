"""book/class-board.md, as a class runs it: the page's console blocks replayed in a scratch
fork (a git repository holding the shipped submissions on `main`) against the real dev files
the page names, each command printing exactly the lines the page shows (so the page cannot go
stale); and the workflow it describes runs the same commands, from the board's own code."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kluebook.common.paths import CHECKOUT

PAGE = CHECKOUT / "book" / "class-board.md"
WORKFLOW = CHECKOUT / ".github" / "workflows" / "submissions.yml"
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Student",
    "GIT_AUTHOR_EMAIL": "student@example.org",
    "GIT_COMMITTER_NAME": "Student",
    "GIT_COMMITTER_EMAIL": "student@example.org",
}


def console_steps() -> list[tuple[str, str]]:
    """Each `$ ` command of the page's console blocks, in order, with the lines it prints."""
    text = PAGE.read_text(encoding="utf-8")
    steps: list[tuple[str, list[str]]] = []
    for block in re.findall(r"^```console\n(.*?)^```$", text, re.S | re.M):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
    return [(command, "".join(f"{line}\n" for line in lines)) for command, lines in steps]


@pytest.fixture(scope="module")
def fork(tmp_path_factory, klue_file):
    """A scratch fork (the shipped submissions committed on `main`), and a data folder holding
    the dev files the page's output names, from KLUEBOOK_DATA_DIR (the test skips without)."""
    root = tmp_path_factory.mktemp("fork")
    data = root / "data"
    named = set(re.findall(r"against (\S+) \(", PAGE.read_text(encoding="utf-8")))
    assert named, "the page shows no checked file"
    for relative in sorted(named):
        found = klue_file(relative)
        (data / relative).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(found, data / relative)
    repo = root / "repo"
    shutil.copytree(CHECKOUT / "submissions", repo / "submissions")
    for command in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "board"]):
        subprocess.run(["git", *command], cwd=repo, env=_env(data), check=True)
    return repo, data


def _env(data: Path) -> dict[str, str]:
    """The student's shell: this interpreter's `kluebook` first on PATH, the data folder,
    unbuffered output (stdout and stderr in the order they are written)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return {
        **os.environ,
        **GIT_IDENTITY,
        "PATH": path,
        "KLUEBOOK_DATA_DIR": str(data),
        "PYTHONUNBUFFERED": "1",
        "COLUMNS": "200",
    }


@pytest.mark.realdata
def test_the_page_s_commands_print_what_it_shows(fork):
    repo, data = fork
    steps = console_steps()
    assert [c for c, _ in steps if c.startswith("kluebook")] == [
        "kluebook submissions check --changed-against main",
        "kluebook submissions check --changed-against main",
        "kluebook submissions score submissions/alice-tfidf",
        "kluebook submissions verify submissions/alice-tfidf",
    ]
    for command, shown in steps:
        ran = subprocess.run(
            ["bash", "-c", command],
            cwd=repo,
            env=_env(data),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )
        assert ran.stdout == shown, command
        refused = shown.startswith("pull request: ")
        assert (ran.returncode != 0) == refused, (command, ran.returncode)
    record = repo / "submissions" / "_derived" / "alice-tfidf.json"
    baseline = repo / "submissions" / "_derived" / "tfidf-baseline.json"
    assert record.is_file()
    # The same predictions and gold as the baseline's: its numbers, cell for cell.
    mine, theirs = (json.loads(p.read_text()) for p in (record, baseline))
    assert mine["tasks"].keys() == theirs["tasks"].keys()
    for task in mine["tasks"]:
        for part in ("official", "intervals", "corrected", "gold_sha256", "predictions_sha256"):
            assert mine["tasks"][task][part] == theirs["tasks"][task][part], (task, part)


def test_the_workflow_checks_and_rescores_with_the_page_s_commands_from_the_board_s_code():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert workflow[True]["pull_request"]["paths"] == ["submissions/**"]  # YAML's `on`
    assert workflow["permissions"] == {"contents": "read"}
    steps = workflow["jobs"]["check"]["steps"]
    checkouts = [s["with"] for s in steps if s.get("uses", "").startswith("actions/checkout")]
    assert checkouts[0]["path"] == "board" and checkouts[0]["ref"] == "${{ github.base_ref }}"
    assert checkouts[1]["path"] == "pull-request" and checkouts[1]["fetch-depth"] == 0
    assert checkouts[1]["persist-credentials"] is False
    runs = [s for s in steps if "run" in s]
    installs = [s["run"] for s in runs if s["run"].startswith("pip install")]
    assert installs[-1] == "pip install -c board/constraints.txt -e ./board"
    on_the_pull_request = " ".join(
        s["run"] for s in runs if s.get("working-directory") == "pull-request"
    )
    for command in (
        'kluebook submissions check --changed-against "origin/$BASE"',
        'kluebook submissions score "submissions/$slug"',
        'kluebook submissions verify "submissions/$slug"',
    ):
        assert command in on_the_pull_request
    order = [s["run"] for s in runs]
    fetch = next(i for i, run in enumerate(order) if run.startswith("kluebook data fetch"))
    check = next(i for i, run in enumerate(order) if "--changed-against" in run)
    assert fetch < check  # the official dev files first


def test_the_teaching_page_links_the_class_board_and_the_toc_lists_it():
    assert "(class-board.md)" in (CHECKOUT / "book" / "teaching.md").read_text(encoding="utf-8")
    toc = yaml.safe_load((CHECKOUT / "_toc.yml").read_text(encoding="utf-8"))
    teaching = next(p for p in toc["parts"] if p["caption"] == "Teaching")
    assert {"file": "book/class-board"} in teaching["chapters"]
