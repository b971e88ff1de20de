"""`kluebook submissions check --changed-against REF`: the changes since REF checked as one pull
request to a board run by pull requests: only one `submissions/<slug>/`, a slug of its own (an
existing one only with --owned), a model name of its own; each refusal one line, exit 1."""

import subprocess

import pytest
from support.submissions import METADATA, make_submission

from kluebook.submissions.ownership import pull_request
from kluebook.tasks import get_task, task_module


def _git(repo, *args):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def board(tmp_path):
    """A git repository whose `main` holds one submission (`base-model`, model "Base"), and a
    data folder with a generated YNAT dev file (as the official file's reduced copy)."""
    task = get_task("ynat")
    module = task_module(task)
    records = module.generate(seed=3, **task.smoke_data)["dev"]
    data = tmp_path / "data"
    path = data / task.files["dev"].replace(".json", ".partial.json")
    path.parent.mkdir(parents=True)
    module.write_official(records, path)
    gold = module.gold_predictions(module.read_official(path), {})
    repo = tmp_path / "repo"
    base = METADATA.replace("Test model", "Base")
    make_submission(repo / "submissions" / "base-model", {"ynat": gold}, base)
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    return repo, data, gold


def _check(kluebook, repo, data, *args):
    return kluebook(
        repo, "submissions", "check", "--changed-against", "main", "--data-dir", str(data), *args
    )


def test_a_new_submission_of_its_own_slug_passes(kluebook, board):
    repo, data, gold = board
    make_submission(repo / "submissions" / "new-model", {"ynat": gold})  # untracked files
    result = _check(kluebook, repo, data)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"new-model: ok ynat.jsonl: {len(gold)} predictions")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "new")  # committed on a branch ahead of main: the same
    assert _check(kluebook, repo, data).returncode == 0


def test_what_the_base_gained_since_the_branch_left_it_is_not_the_pull_request_s(kluebook, board):
    """Carol's submission lands on main after Alice's branch left it: Alice's check counts only
    her own folder, and her slug is checked against main as it is now."""
    repo, data, gold = board
    _git(repo, "switch", "-q", "-c", "alice")
    make_submission(repo / "submissions" / "alice", {"ynat": gold}, METADATA)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "alice")
    _git(repo, "switch", "-q", "main")
    carol = METADATA.replace("Test model", "Carol's model")
    make_submission(repo / "submissions" / "carol", {"ynat": gold}, carol)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "carol")
    _git(repo, "switch", "-q", "alice")
    result = _check(kluebook, repo, data)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("alice: ok ynat.jsonl")
    _git(repo, "switch", "-q", "-c", "dave", "alice")
    make_submission(repo / "submissions" / "carol", {"ynat": gold}, METADATA)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "dave takes carol's slug")
    refused = _check(kluebook, repo, data).stderr.splitlines()
    assert refused == [
        "pull request: changes 2 submissions (alice, carol): a pull request adds or changes one "
        "submission",
        "pull request: carol: a submission of this slug exists on main and is another's: a new "
        "submission takes a slug of its own",
    ]


def test_another_s_slug_and_files_outside_the_folder_are_refused(kluebook, board):
    repo, data, _ = board
    (repo / "submissions" / "base-model" / "ynat.jsonl").write_text("")
    (repo / "submissions" / "_derived").mkdir()
    (repo / "submissions" / "_derived" / "base-model.json").write_text("{}")
    (repo / "README.md").write_text("hello")
    result = _check(kluebook, repo, data)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    outside = (
        "outside any submission folder (a submission's pull request changes only "
        "submissions/<its slug>/; the derived records are the workflow's)"
    )
    assert lines[:3] == [
        f"pull request: README.md: {outside}",
        f"pull request: submissions/_derived/base-model.json: {outside}",
        "pull request: base-model: a submission of this slug exists on main and is another's: "
        "a new submission takes a slug of its own",
    ]
    # Its own submission's owner may change it (the workflow says so); the file is then checked.
    owned = _check(kluebook, repo, data, "--owned", "base-model")
    assert "exists on main" not in owned.stderr
    assert "base-model: ynat.jsonl: " in owned.stderr and owned.returncode == 1


def test_two_submissions_a_twin_slug_and_a_taken_model_name_are_refused(kluebook, board):
    repo, data, gold = board
    make_submission(repo / "submissions" / "base_model", {"ynat": gold})
    make_submission(
        repo / "submissions" / "other", {"ynat": gold}, METADATA.replace("Test model", "BASE")
    )
    result = _check(kluebook, repo, data)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "pull request: changes 2 submissions (base_model, other): a pull request adds or "
        "changes one submission",
        "pull request: base_model: too close to the existing slug base-model: take another",
        "pull request: other: the model name 'BASE' is that of the submission base-model: a new "
        "submission names its own model",
    ]


def test_an_unknown_ref_is_one_line(kluebook, board):
    repo, _, _ = board
    result = kluebook(repo, "submissions", "check", "--changed-against", "nowhere")
    assert result.returncode == 1
    assert result.stderr == "pull request: 'nowhere' is no commit of this repository\n"


def test_no_change_checks_nothing(kluebook, board):
    repo, data, _ = board
    result = _check(kluebook, repo, data)
    assert result.returncode == 0
    assert result.stdout == "pull request: no submission changed since main\n"


@pytest.mark.parametrize(
    "path",
    ["submissions/a/b/c.jsonl", "submissions/a", "submissions/A-B/x.jsonl", "src/kluebook/x.py"],
)
def test_a_path_outside_a_submission_folder_is_refused(path):
    (line,) = pull_request([path], {}, "main").problems
    assert line.startswith(f"{path}: outside any submission folder")


def test_an_owned_submission_may_change_and_a_new_one_passes():
    existing = {"mine": "Mine"}
    owned = pull_request(["submissions/mine/ynat.jsonl"], existing, "main", frozenset({"mine"}))
    assert (owned.slugs, owned.problems) == (["mine"], [])
    files = ["submissions/new/submission.yaml", "submissions/new/ynat.jsonl"]
    new = pull_request(files, existing, "main", models={"new": "New"})
    assert (new.slugs, new.problems) == (["new"], [])


def test_a_check_of_nothing_says_what_to_give(kluebook, board):
    repo, _, _ = board
    result = kluebook(repo, "submissions", "check")
    assert result.returncode == 2
    assert result.stderr == "give submission folders, or --changed-against a git ref\n"
