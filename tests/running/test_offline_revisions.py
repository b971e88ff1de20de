"""Pinned and offline: with HF_HUB_OFFLINE=1 a sweep of a hub model on the hub dataset finds both
in the local caches, laid out as huggingface_hub (`models--org--name/snapshots/<commit>/`) and
datasets (`klue___klue/<config>/<version>/<commit>/`) lay them out, pins both commits in the
record, its fingerprint and its rerun command; a missing one fails in one line before any run.
HF_ENDPOINT points at a closed local port, so any query of the hub would fail."""

import json
import os
import shutil

import pytest

from kluebook.data.loading import generated_data_dir
from kluebook.tasks import get_task, task_module

MODEL = "org/standin"
MODEL_COMMIT = "1" * 40
DATA_COMMIT = "2" * 40
SMALL = ["--set", "train_limit=48", "--set", "dev_limit=24", "--set", "epochs=1", "--quiet"]


def hub_rows(split: str) -> list[dict]:
    """The smoke ynat data as the hub dataset has it (integer labels in the hub order)."""
    task = get_task("ynat")
    records = task_module(task).read_official(generated_data_dir(task) / task.files[split])
    from kluebook.tasks.ynat.data import HUB_LABELS as labels

    return [
        {"guid": r["guid"], "title": r["title"], "label": labels.index(r["label"])} for r in records
    ]


@pytest.fixture(scope="module")
def caches(tmp_path_factory):
    """A Hugging Face home with the stand-in checkpoint and the ynat config of klue/klue."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from datasets.packaged_modules.parquet.parquet import Parquet

    from kluebook.training.tiny_model import build_tiny_model

    home = tmp_path_factory.mktemp("hf")
    repo = home / "hub" / "models--org--standin"
    shutil.copytree(
        build_tiny_model([r["title"] for r in hub_rows("train")]), repo / "snapshots" / MODEL_COMMIT
    )
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(MODEL_COMMIT)
    files = {}
    for split, hub_split in (("train", "train"), ("dev", "validation")):
        files[hub_split] = str(home / f"{hub_split}.parquet")
        pq.write_table(pa.Table.from_pylist(hub_rows(split)), files[hub_split])
    staging = home / "staging"
    builder = Parquet(
        cache_dir=str(staging),
        dataset_name="klue",
        config_name="ynat",
        hash=DATA_COMMIT,
        data_files=files,
    )
    builder.download_and_prepare()
    [prepared] = staging.glob(f"klue/*/0.0.0/{DATA_COMMIT}")
    target = home / "datasets" / "klue___klue" / "ynat" / "0.0.0" / DATA_COMMIT
    target.parent.mkdir(parents=True)
    shutil.copytree(prepared, target)
    return home


def offline(home) -> dict:
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(home),
        "HF_HUB_CACHE": str(home / "hub"),
        "HF_DATASETS_CACHE": str(home / "datasets"),
        "HF_ENDPOINT": "http://127.0.0.1:9",
    }


@pytest.mark.slow
def test_an_offline_run_pins_the_cached_model_and_dataset(kluebook, caches, scratch_book):
    root = scratch_book
    run = ("run", "--tasks", "ynat", "--models", MODEL, "--data-source", "hub", "--seeds", "1")
    result = kluebook(root, *run, *SMALL, env=offline(caches))
    assert result.returncode == 0, result.stdout + result.stderr
    [path] = (root / "results" / "smoke" / "ynat").glob("*.json")
    record = json.loads(path.read_text())
    assert record["status"] == "succeeded"
    assert record["parameters"]["model_revision"] == record["model_revision"] == MODEL_COMMIT
    assert record["parameters"]["data_revision"] == DATA_COMMIT
    assert record["data_checksum"] == f"hub:klue/klue/ynat@{DATA_COMMIT}"
    assert record["counts"]["dev"] == 24
    report = kluebook(root, "report", env=offline(caches))  # the report renders the run's page
    assert report.returncode == 0, report.stdout + report.stderr
    page = (root / record["notebook"]).read_text()
    assert f"--model-revision {MODEL_COMMIT} --data-revision {DATA_COMMIT}" in page
    # The same command again: up to date, as the commits are the same.
    again = kluebook(root, *run, *SMALL, env=offline(caches))
    assert "0 succeeded, 1 skipped" in again.stdout, again.stdout + again.stderr


def test_a_dataset_missing_offline_fails_in_one_line_before_any_run(
    kluebook, caches, scratch_book, tmp_path
):
    root = scratch_book
    env = {**offline(caches), "HF_DATASETS_CACHE": str(tmp_path / "empty")}
    run = ("run", "--tasks", "ynat", "--models", MODEL, "--data-source", "hub", "--seeds", "1")
    result = kluebook(root, *run, env=env)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: dataset klue/klue/ynat is not in the local datasets cache (HF_HUB_OFFLINE=1): "
        "run once with the hub reachable to download it"
    )
    assert not (root / "results" / "smoke").exists()


def test_a_revision_not_in_the_caches_fails_in_one_line(kluebook, caches, scratch_book):
    root = scratch_book
    run = ("run", "--tasks", "ynat", "--models", MODEL, "--data-source", "hub", "--seeds", "1")
    model = kluebook(root, *run, "--model-revision", "3" * 40, env=offline(caches))
    assert model.stderr.strip().startswith(f"error: model {MODEL!r} at revision {'3' * 40} is not")
    data = kluebook(root, *run, "--data-revision", "v1.0", env=offline(caches))
    assert data.stderr.strip().startswith("error: dataset klue/klue/ynat at revision v1.0 is not")
    assert model.returncode == data.returncode == 2
