"""benchmarks/make_baselines.py: the baselines learn from the train split only (shuffling the
dev labels changes no prediction), and the DP rule reads the relation off the last POS tag."""

import random
from pathlib import Path

import pytest
from conftest import load_script

from kluebook.common.paths import CHECKOUT
from kluebook.tasks import get_task, task_module
from kluebook.tasks.dp.metric import DEPRELS

SCRIPT = (CHECKOUT or Path.cwd()) / "benchmarks" / "make_baselines.py"


@pytest.fixture(scope="module")
def baselines():
    return load_script(SCRIPT)


def reduced_copies(root: Path, seed: int, shuffle_dev_labels: bool) -> Path:
    """Generated YNAT, NLI and STS train and dev files under their reduced-copy names; the dev
    labels shuffled among the items if asked."""
    rng = random.Random(seed)
    for name in ("ynat", "nli", "sts"):
        task = get_task(name)
        data = task_module(task).generate(seed=seed, **task.smoke_data)
        if shuffle_dev_labels:
            field = {"ynat": "label", "nli": "gold_label", "sts": "labels"}[name]
            labels = [record[field] for record in data["dev"]]
            rng.shuffle(labels)
            data["dev"] = [
                {**r, field: label} for r, label in zip(data["dev"], labels, strict=True)
            ]
        for split in ("train", "dev"):
            path = root / task.files[split].replace(".json", ".partial.json")
            path.parent.mkdir(parents=True, exist_ok=True)
            task_module(task).write_official(data[split], path)
    return root


def test_the_trained_baselines_never_see_a_dev_label(baselines, tmp_path):
    plain = reduced_copies(tmp_path / "plain", 1, shuffle_dev_labels=False)
    shuffled = reduced_copies(tmp_path / "shuffled", 1, shuffle_dev_labels=True)
    metadata, predictions = baselines.tfidf(plain)
    _, again = baselines.tfidf(shuffled)
    assert again == predictions
    assert metadata["dev_data_used"] is False and metadata["parameters"] > 0
    dev = task_module(get_task("ynat")).read_official(
        plain / "ynat-v1.1" / "ynat-v1.1_dev.partial.json"
    )
    assert [row["guid"] for row in predictions["ynat"]] == [r["guid"] for r in dev]
    assert all(0 <= row["score"] <= 5 for row in predictions["sts"])


@pytest.mark.parametrize(
    ("pos", "relation"),
    [
        ("NNP+JKS", "NP_SBJ"),
        ("NNG+JKO", "NP_OBJ"),
        ("NNP+JKG", "NP_MOD"),
        ("NNG+JKB", "NP_AJT"),
        ("VV+ETM", "VP_MOD"),
        ("VV+EC", "VP"),
        ("MAG", "AP"),
        ("NNG", "NP"),
    ],
)
def test_the_dp_relation_rule(baselines, pos, relation):
    assert baselines.relation(pos) == relation
    assert relation in DEPRELS
