"""HF_HUB_OFFLINE=1: the model check reads the local Hugging Face cache, not the network.

huggingface_hub reads HF_HUB_OFFLINE and HF_HUB_CACHE when it is imported, so every check runs
in a fresh interpreter with the variables set. HF_ENDPOINT points at a closed local port: a
check that touched the network would fail even on a machine with internet.
"""

import os

import pytest

from kluebook.tasks import get_task

CACHED = "org/name"
UNCACHED = "org/absent"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
NOT_CACHED = (
    "model 'org/absent' is not in the local Hugging Face cache (HF_HUB_OFFLINE=1): "
    "run once with the hub reachable to download it"
)


@pytest.fixture
def offline_env(tmp_path):
    """A Hugging Face cache holding `org/name`, laid out as huggingface_hub lays it out."""
    hub_cache = tmp_path / "hf" / "hub"
    repo = hub_cache / "models--org--name"
    snapshot = repo / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text('{"model_type": "bert"}\n', encoding="utf-8")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT, encoding="utf-8")
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_CACHE": str(hub_cache),
        "HF_ENDPOINT": "http://127.0.0.1:9",
    }


@pytest.fixture
def ynat_data_dir(tmp_path):
    """A --data-dir holding the ynat files (empty: preflight only checks they exist)."""
    folder = tmp_path / "klue_benchmark"
    for relative in get_task("ynat").files.values():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).touch()
    return folder


def check(kluebook, root, model: str, env: dict):
    return kluebook.python(
        root,
        "from kluebook.training.checkpoints import check_hub_model\n"
        "from kluebook.common.errors import KluebookError\n"
        "try:\n"
        f"    check_hub_model({model!r})\n"
        "except KluebookError as error:\n"
        "    print(error)\n"
        "    raise SystemExit(2)\n",
        env=env,
    )


def test_a_cached_model_passes_offline(kluebook, book_sources, offline_env):
    result = check(kluebook, book_sources, CACHED, offline_env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_an_uncached_model_fails_offline_in_one_line(kluebook, book_sources, offline_env):
    result = check(kluebook, book_sources, UNCACHED, offline_env)
    assert result.returncode == 2, result.stderr
    assert result.stdout.strip() == NOT_CACHED


def test_preflight_of_a_paper_run_passes_offline_with_a_cached_model(
    kluebook, book_sources, offline_env, ynat_data_dir
):
    # Preflight checks the data before the models, so the data must be there for the model
    # check to be reached; preflight starts no run.
    result = kluebook.python(
        book_sources,
        "from kluebook.running import run_plan\n"
        f"specs = run_plan.plan('paper', tasks=['ynat'], models=[{CACHED!r}],\n"
        f"                    data_source='official', data_dir={str(ynat_data_dir)!r})\n"
        "run_plan.preflight(specs)\n",
        env=offline_env,
    )
    assert result.returncode == 0, result.stderr


def test_the_cli_reports_an_uncached_model_offline(
    kluebook, book_sources, offline_env, ynat_data_dir
):
    result = kluebook(
        book_sources,
        *("run", "--profile", "paper", "--tasks", "ynat", "--models", UNCACHED),
        *("--data-source", "official", "--data-dir", str(ynat_data_dir)),
        env=offline_env,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == f"error: {NOT_CACHED}"


def test_the_cli_with_a_cached_model_offline_fails_on_missing_data(
    kluebook, book_sources, offline_env, tmp_path
):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = kluebook(
        book_sources,
        *("run", "--profile", "paper", "--tasks", "ynat", "--models", CACHED),
        *("--data-source", "official", "--data-dir", str(empty)),
        env=offline_env,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: {empty} lacks the ynat files: "
        "ynat-v1.1/ynat-v1.1_train.json, ynat-v1.1/ynat-v1.1_dev.json"
    ]
