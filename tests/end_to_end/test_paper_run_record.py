"""A paper run's record says how it was computed: every switch of the recipe at its paper value,
and the last dev evaluation where Lightning 1.1 would have made it.

One small YNAT run in a scratch copy of the book: a local stand-in checkpoint (the tiny model,
copied into the book and named by a relative path), the generated smoke data read as official
files, 340 training headlines. With batch 32 that is 11 batches an epoch; Lightning checks every
int(11 / 4) = 2 batches, five times an epoch, and never after the 11th: the last evaluation is
after step 43 of 44.
"""

import json
import shutil

import pytest

from kluebook.tasks import get_task, task_module
from kluebook.training.official_trainer import lightning_evaluation_steps
from kluebook.training.recipes import SWITCH_DEFAULTS
from kluebook.training.tiny_model import build_tiny_model

pytestmark = pytest.mark.slow


def test_a_paper_run_records_its_switches_and_its_last_evaluation(kluebook, scratch_book):
    root = scratch_book
    task = get_task("ynat")
    data = root / "klue-data"
    generated = task_module(task).generate(seed=0)
    for role in ("train", "dev"):
        task_module(task).write_official(generated[role], data / task.files[role])
    titles = [r["title"] for r in generated["train"][:340]]
    shutil.copytree(build_tiny_model(titles), root / "standin-roberta")
    result = kluebook(
        root,
        "run",
        "--profile",
        "paper",
        "--tasks",
        "ynat",
        "--models",
        "standin-roberta",
        "--data-source",
        "official",
        "--data-dir",
        "klue-data",
        "--seeds",
        "1",
        "--quiet",
        "--set",
        "train_limit=340",
        "--set",
        "dev_limit=60",
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (path,) = (root / "results/paper/ynat").glob("*.json")
    record = json.loads(path.read_text())
    assert record["status"] == "succeeded"
    recipe = record["recipe"]
    assert {name: recipe[name] for name in SWITCH_DEFAULTS} == SWITCH_DEFAULTS
    assert recipe["learning_rate"] == 5e-5 and recipe["epochs"] == 4
    assert record["counts"]["train"] == 340
    assert record["last_checkpoint"]["step"] == 43
    points = lightning_evaluation_steps(11, 4, 4)
    assert points[:6] == [2, 4, 6, 8, 10, 13] and points[-1] == 43 and len(points) == 20
    assert record["best_checkpoint"]["step"] in points
