"""Every task notebook, run on the smoke profile, scores clearly above chance: a working
pipeline learns the generated data, a broken one does not."""

import json
import os
import subprocess
import sys

import pytest

from kluebook.book import copy_sources
from kluebook.tasks import available_tasks

pytestmark = pytest.mark.slow

# The selection metric of each task and the score a model without a working pipeline cannot
# reach on the generated dev data (chance or a trivial baseline, plus a wide margin).
ABOVE_CHANCE = {
    "ynat": ("macro_f1", 60.0),  # uniform guessing ~14, majority class ~4
    "sts": ("pearsonr", 40.0),  # constant or random outputs: r ~0
    "nli": ("accuracy", 60.0),  # majority class ~33
    "re": ("micro_f1", 50.0),  # entity-type rule ~21, priors 0
    "ner": ("char_f1", 60.0),  # all-O: char F1 ~8 on 13 tags
    "dp": ("las", 40.0),  # attach everything to the root: LAS macro < 10
    "mrc": ("rouge_w", 50.0),  # always "no answer": ROUGE-W = share of unanswerable ~33
    "wos": ("slot_f1", 30.0),  # empty states: slot F1 = share of empty-gold turns ~7
}
TASKS = [t for t in available_tasks() if t != "ynat"]  # ynat is run by the end-to-end test


@pytest.fixture(scope="module")
def smoke_records(tmp_path_factory):
    root = copy_sources(tmp_path_factory.mktemp("smoke"))
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from kluebook.cli import main; main()",
            "run",
            "--quiet",
            "--seeds",
            "1",
            "--tasks",
            ",".join(TASKS),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "KLUEBOOK_ROOT": str(root)},
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return {
        task: json.loads(
            (root / "results/smoke" / task / "kluebook--tiny-roberta-seed1.json").read_text()
        )
        for task in TASKS
    }


@pytest.mark.parametrize("task", TASKS)
def test_smoke_run_scores_well_above_chance(smoke_records, task):
    record = smoke_records[task]
    metric, floor = ABOVE_CHANCE[task]
    assert record["status"] == "succeeded"
    assert record["metrics"][metric] > floor, record["metrics"]
    assert record["last_checkpoint"] and record["best_checkpoint"]
