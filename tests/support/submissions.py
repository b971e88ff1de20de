"""Helpers of the submission tests: a submission folder written from metadata and rows."""

import json
from pathlib import Path

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
