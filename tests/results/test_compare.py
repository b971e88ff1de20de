"""`kluebook compare`: two predictions files, two configurations of a sweep, and its errors."""

import json
import random

import pytest
from conftest import valid_record
from typer.testing import CliRunner

from kluebook.cli.app import app
from kluebook.common.errors import KluebookError
from kluebook.data.loading import data_checksum, load_split
from kluebook.results import compare
from kluebook.tasks import get_task, task_module


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return str(path)


@pytest.fixture
def files(tmp_path, imperfect_predictions):
    """An NLI dev file, a good and a poor predictions file, and one missing a line."""
    task = get_task("nli")
    gold = task_module(task).generate(seed=2, dev_size=600)["dev"]
    task_module(task).write_official(gold, tmp_path / "dev.json")
    lines = task_module(task).gold_predictions(gold)
    good = [dict(r) for r in lines]
    poor = imperfect_predictions("nli", [dict(r) for r in lines], random.Random(1))
    return {
        "gold": str(tmp_path / "dev.json"),
        "good": _write_jsonl(tmp_path / "good.jsonl", good),
        "poor": _write_jsonl(tmp_path / "poor.jsonl", poor),
        "short": _write_jsonl(tmp_path / "short.jsonl", good[:-1]),
    }


def _compare(*args):
    return CliRunner().invoke(app, ["compare", *args])


def same_line(output: str) -> str:
    """The Accuracy line of `kluebook compare`'s table."""
    return next(line for line in output.splitlines() if line.startswith("Accuracy"))


def test_two_predictions_files_get_a_verdict_per_metric(files):
    result = _compare(files["good"], files["poor"], "--task", "nli", "--gold", files["gold"])
    assert result.exit_code == 0, result.output
    assert "paired bootstrap over 600 sentence pairs" in result.output
    line = next(line for line in result.output.splitlines() if line.startswith("Accuracy"))
    assert line.endswith("A is better")
    reverse = _compare(files["poor"], files["good"], "--task", "nli", "--gold", files["gold"])
    assert same_line(reverse.output).endswith("B is better")
    same = _compare(files["poor"], files["poor"], "--task", "nli", "--gold", files["gold"])
    assert same_line(same.output).endswith("1.000  not distinguishable with this dev set")


def test_mismatched_guids_or_tasks_are_one_line_errors(files):
    short = _compare(files["good"], files["short"], "--task", "nli", "--gold", files["gold"])
    assert short.exit_code != 0
    assert "missing prediction for guid" in str(short.exception)
    other_task = _compare(files["good"], files["poor"], "--task", "ynat", "--gold", files["gold"])
    assert other_task.exit_code != 0 and "not a YNAT file" in str(other_task.exception)


@pytest.mark.slow
def test_two_configurations_of_the_learning_rate_sweep(kluebook, scratch_book):
    """Three tiny ynat runs of the shipped sweep, one seed each; their records carry intervals."""
    root = scratch_book
    limits = ["--set", "train_limit=200", "--set", "dev_limit=80"]
    ran = kluebook(
        root,
        "run",
        "--matrix",
        "learning-rate",
        "--tasks",
        "ynat",
        "--seeds",
        "1",
        "--quiet",
        *limits,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    records = [json.loads(p.read_text()) for p in (root / "results/smoke/ynat").glob("*.json")]
    assert len(records) == 3
    for record in records:
        interval = record["intervals"]["macro_f1"]
        assert interval["low"] <= record["metrics"]["macro_f1"] <= interval["high"]
        assert record["bootstrap"]["unit"] == "headline"
    labels = sorted(r["config"] for r in records)
    compared = kluebook(root, "compare", labels[0], labels[1], "--task", "ynat")
    assert compared.returncode == 0, compared.stderr
    lines = compared.stdout.splitlines()
    assert lines[0] == f"ynat: A = {labels[0]} (1 seed), B = {labels[1]} (1 seed)"
    assert "paired bootstrap over 80 headlines" in lines[1]
    metric = next(line for line in lines if line.startswith("Macro F1"))
    assert metric.endswith(("A is better", "B is better", "not distinguishable with this dev set"))
    assert lines[-1].startswith("seed pair 1:") and lines[-1].endswith("of 80")
    unknown = kluebook(root, "compare", labels[0], "nope", "--task", "ynat")
    assert unknown.returncode == 2 and "no succeeded ynat run of 'nope'" in unknown.stderr


def test_two_files_are_scored_with_the_switches_given(tmp_path):
    """`--set` reaches the scoring of both sides: a paper run's NER switch asks for the boundary
    tags the lines lack, without it the same files compare."""
    task = get_task("ner")
    gold = task_module(task).generate(seed=2, train_size=1, dev_size=40)["dev"]
    task_module(task).write_official(gold, tmp_path / "dev.tsv")
    lines = _write_jsonl(tmp_path / "gold.jsonl", task_module(task).gold_predictions(gold))
    args = [lines, lines, "--task", "ner", "--gold", str(tmp_path / "dev.tsv")]
    assert _compare(*args).exit_code == 0
    refused = _compare(*args, "--set", "ner_boundary_tags=model")
    assert refused.exit_code != 0
    assert "ner_boundary_tags: model" in str(refused.exception)


def test_a_run_of_every_dev_item_compares_whether_its_limit_was_left_out_or_zero(tmp_path):
    """A fine-tuned run of the profile's recipe (no dev limit) and a prompted run told
    `dev_limit=0` scored the same items; a run of the first 20 did not."""
    task = get_task("nli")
    gold = load_split(task, "dev", "generated", None)
    lines = task_module(task).gold_predictions(gold)
    checksum = data_checksum(task, "generated", None)
    runs = []
    for name, limit in (("tuned", None), ("prompted", 0), ("first-20", 20)):
        rows = lines[:limit] if limit else lines
        _write_jsonl(tmp_path / f"{name}.jsonl", rows)
        parameters = {"data_source": "generated", **({} if limit is None else {"dev_limit": limit})}
        fields = {"task": "nli", "config": name, "parameters": parameters, "metrics": {}}
        runs.append(
            valid_record({**fields, "data_checksum": checksum, "predictions": f"{name}.jsonl"})
        )
    found, sides = compare.from_records(task, runs, "tuned", "prompted", root=tmp_path)
    assert len(found) == len(gold) and [len(side.metrics) for side in sides] == [1, 1]
    with pytest.raises(KluebookError, match="scored on different dev sets"):
        compare.from_records(task, runs, "tuned", "first-20", root=tmp_path)
