"""The paper profile end to end, on every task and both released checkpoint shapes.

`kluebook run --profile paper` runs each task's notebook, on small limits and one epoch, with two
stand-in checkpoints (tests/conftest.py `standin_checkpoint`): one shaped like klue/bert-base
(BERT, two token types), one like klue/roberta-base (RoBERTa, one token type, a BertTokenizer),
both tiny and randomly initialised, with a WordPiece vocabulary learned from the runs' text. The
data are the real KLUE files where KLUEBOOK_DATA_DIR has them (YNAT, STS, NLI, NER, DP; the NER
and DP dev files double as training files, as their training files are not there) and the
generated files in the official format otherwise. Each run must write a succeeded record with
every official metric of its task, every switch at its paper value, and its last evaluation
where Lightning 1.1 would have made it. What each run scored is printed (`pytest -s`).
"""

import json
import math
import shutil
import time

import pytest
from conftest import standin_checkpoint

from kluebook.common.paths import KLUE_DATA
from kluebook.data.loading import HUB_SPLITS, generated_data_dir
from kluebook.tasks import all_tasks, task_module
from kluebook.training.official_trainer import lightning_evaluation_steps
from kluebook.training.recipes import resolve_recipe

pytestmark = pytest.mark.slow

TASKS = list(all_tasks().values())
SHAPES = ("bert", "roberta")
# 288 examples are nine training batches of the recipe's 32: Lightning checks every
# int(9 / 4) = 2 batches and never after the 8th, so the last evaluation is not at the last step,
# where the Trainer's own schedule would put it. MRC and WoS batch 16 windows or user turns.
TRAIN_LIMIT = {"mrc": 144, "wos": 48}
# RE's first 100 generated dev examples hold all 30 relations, which AUPRC needs to be defined.
DEV_LIMIT = {"re": 100, "wos": 3}
DEFAULT_TRAIN_LIMIT, DEFAULT_DEV_LIMIT = 288, 32
# How many training examples a run trained on: its windows or turns where a record is split.
TRAIN_FEATURES = ("train_windows", "train_turns", "train")


def real_file(relative: str, role: str, dev: str) -> str | None:
    """The real KLUE file for a role, a reduced copy of it, or for train the dev file."""
    candidates = [relative, relative.replace(".json", ".partial.json")]
    if role == "train":
        candidates += [dev, dev.replace(".json", ".partial.json")]
    return next((c for c in candidates if (KLUE_DATA / c).is_file()), None)


def lay_out_data(folder) -> dict[str, str]:
    """Every task's files in `folder`: real where train and dev are both there, else generated;
    returns where each task's data came from."""
    origin = {}
    for task in TASKS:
        real = {role: real_file(task.files[role], role, task.files["dev"]) for role in HUB_SPLITS}
        source = generated_data_dir(task)
        if all(real.values()):
            origin[task.name] = "real" if real["train"] != real["dev"] else "real (dev as train)"
        for role, relative in task.files.items():
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if all(real.values()) and role in real:
                shutil.copyfile(KLUE_DATA / real[role], target)
            elif all(real.values()) and (KLUE_DATA / relative).is_file():
                shutil.copyfile(KLUE_DATA / relative, target)  # e.g. RE's relation list
            else:
                shutil.copyfile(source / relative, target)
        origin.setdefault(task.name, "generated")
    return origin


def texts_of(value) -> list[str]:
    """Every string inside a record (text fields, labels, slot values)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [text for item in value for text in texts_of(item)]
    return []


@pytest.fixture(scope="module")
def book(tmp_path_factory, new_book):
    """A scratch book with every task's data and the two stand-in checkpoints."""
    root = new_book(tmp_path_factory.mktemp("paper"))
    origin = lay_out_data(root / "klue-data")
    corpus = []
    for task in TASKS:
        for role in HUB_SPLITS:
            records = task_module(task).read_official(root / "klue-data" / task.files[role])
            limit = TRAIN_LIMIT.get(task.name, DEFAULT_TRAIN_LIMIT)
            corpus += texts_of(records[:limit])
    for shape in SHAPES:
        standin_checkpoint(root / f"standin-{shape}", shape, corpus)
    return root, origin


@pytest.mark.parametrize("task", TASKS, ids=[t.name for t in TASKS])
def test_the_paper_profile_runs_with_both_checkpoint_shapes(kluebook, book, task, capsys):
    root, origin = book
    started = time.time()
    result = kluebook(
        root,
        "run",
        *("--profile", "paper", "--tasks", task.name, "--seeds", "1", "--quiet", "--jobs", "2"),
        *("--models", ",".join(f"standin-{shape}" for shape in SHAPES)),
        *("--data-source", "official", "--data-dir", "klue-data"),
        *("--set", f"train_limit={TRAIN_LIMIT.get(task.name, DEFAULT_TRAIN_LIMIT)}"),
        *("--set", f"dev_limit={DEV_LIMIT.get(task.name, DEFAULT_DEV_LIMIT)}"),
        *("--set", "epochs=1"),
    )
    elapsed = time.time() - started
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    paths = sorted((root / "results/paper" / task.name).glob("*.json"))
    assert len(paths) == len(SHAPES)
    for shape in SHAPES:
        (path,) = [p for p in paths if f"standin-{shape}" in p.name]
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["status"] == "succeeded"
        metrics = record["metrics"]
        for metric in task.metrics:  # x100; a Pearson r may be negative
            value = metrics[metric.key]
            assert value is not None and math.isfinite(value) and -100 <= value <= 100, metric.key
        expected = resolve_recipe(task, f"standin-{shape}", "paper", {"epochs": 1})
        assert {name: record["recipe"][name] for name in expected.switches()} == (
            expected.switches()
        )
        counts = record["counts"]
        examples = next(counts[key] for key in TRAIN_FEATURES if key in counts)
        batches = math.ceil(examples / expected.batch_size)
        points = lightning_evaluation_steps(
            batches, 1, expected.evals_per_epoch, expected.gradient_accumulation
        )
        last = record["last_checkpoint"]["step"]
        assert last == points[-1], (examples, batches, points)
        assert record["best_checkpoint"]["step"] in points
        shown = ", ".join(f"{key} {value:.2f}" for key, value in metrics.items())
        with capsys.disabled():
            print(
                f"\n{task.name} ({origin[task.name]} data), {shape}: {shown}; "
                f"{examples} training examples in {batches} batches, last evaluation after "
                f"step {last}"
            )
    with capsys.disabled():
        print(f"{task.name}: both runs in {elapsed:.0f} s")
