"""A submission folder to edit, against a data folder of generated dev files (reduced-copy
names, so no official pin applies) or the real ones."""

import json
from pathlib import Path

import pytest

from kluebook.tasks import get_task

METADATA = """\
model: Test model
link: https://example.org/model
parameters: 110000000
method: fine-tuned
training_data: KLUE v1.1 train
dev_data_used: false
tool: kluebook
tool_version: 0.1.0
predictions_license: CC-BY-SA-4.0
date: 2026-12-07
"""


def write_lines(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return path


def make_submission(folder: Path, predictions: dict[str, list[dict]], metadata=METADATA) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "submission.yaml").write_text(metadata)
    for task, rows in predictions.items():
        write_lines(folder / f"{task}.jsonl", rows)
    return folder


@pytest.fixture(scope="session")
def generated_dev(tmp_path_factory) -> tuple[Path, dict[str, list[dict]]]:
    """A data folder with generated YNAT, NLI and STS dev files under their reduced-copy
    names, and each task's gold records."""
    root = tmp_path_factory.mktemp("data")
    gold = {}
    for name in ("ynat", "nli", "sts"):
        task = get_task(name)
        records = task.module.generate(seed=3, **task.smoke_data)["dev"]
        path = root / task.files["dev"].replace(".json", ".partial.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        task.module.write_official(records, path)
        gold[name] = task.module.read_official(path)
    return root, gold


@pytest.fixture
def perfect(generated_dev):
    """Perfect predictions of each generated task."""
    _, gold = generated_dev
    return {
        name: get_task(name).module.gold_predictions(records, {}) for name, records in gold.items()
    }
