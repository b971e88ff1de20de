"""Bootstrap intervals: the fast forms equal the official metric on the same resamples, the
intervals cover the true value as often as they claim, and the paired test tells systems apart."""

import os
from pathlib import Path

import numpy as np
import pytest

from kluebook.scoring import bootstrap
from kluebook.scoring.predictions import index_predictions
from kluebook.tasks import all_tasks, get_task, task_module

TASKS = list(all_tasks())


def _official_and_fast(task_name, records, rows, resamples):
    task = get_task(task_name)
    predictions = index_predictions(task, records, rows)
    keys = list(bootstrap.fast_statistics(task, records, predictions))
    fast = bootstrap.replicates(task, records, predictions, resamples=resamples, keys=keys)
    units = bootstrap.units_of(task, records)
    weights = bootstrap.multiplicities(int(units.max()) + 1, resamples)[:, units]
    return fast, bootstrap.official_values(task, records, predictions, weights), keys


@pytest.mark.parametrize("task_name", TASKS)
def test_every_metric_has_a_fast_form(task_name, smoke_dev):
    task = get_task(task_name)
    records, rows = smoke_dev(task_name)
    forms = bootstrap.fast_statistics(task, records, index_predictions(task, records, rows))
    assert {m.key for m in task.metrics} <= set(forms)


@pytest.mark.parametrize("task_name", TASKS)
def test_fast_forms_equal_the_official_score_on_the_same_resamples(task_name, smoke_dev):
    records, rows = smoke_dev(task_name)
    fast, official, keys = _official_and_fast(task_name, records, rows, resamples=20)
    for key in keys:
        assert np.array_equal(np.isnan(fast[key]), np.isnan(official[key])), key
        defined = ~np.isnan(official[key])
        assert defined.any(), key
        np.testing.assert_allclose(fast[key][defined], official[key][defined], rtol=0, atol=1e-9)
        assert len(set(official[key][defined].round(6))) > 1, f"{key}: the resamples differ"


@pytest.mark.parametrize("task_name", TASKS)
def test_the_fast_form_of_the_whole_dev_set_is_the_official_score(task_name, smoke_dev):
    task = get_task(task_name)
    records, rows = smoke_dev(task_name)
    predictions = index_predictions(task, records, rows)
    scores = task_module(task).score(records, predictions)
    for key, form in bootstrap.fast_statistics(task, records, predictions).items():
        value = form.values(np.ones((1, len(records))))[0]
        assert value == pytest.approx(scores[key], abs=1e-9), key


REAL = Path(os.environ.get("KLUEBOOK_DATA_DIR", "data/klue_benchmark"))


@pytest.mark.slow
@pytest.mark.parametrize("task_name", ["ynat", "ner", "dp", "sts", "nli"])
def test_fast_forms_equal_the_official_score_on_real_dev_files(task_name, imperfect_predictions):
    import random

    task = get_task(task_name)
    path = REAL / task.files["dev"]
    path = path if path.is_file() else path.with_suffix(".partial" + path.suffix)
    if not path.is_file():
        pytest.skip(f"no {task.files['dev']} under KLUEBOOK_DATA_DIR")
    records = task_module(task).read_official(path)
    rows = imperfect_predictions(
        task_name, task_module(task).gold_predictions(records), random.Random(3)
    )
    fast, official, keys = _official_and_fast(task_name, records, rows, resamples=3)
    for key in keys:
        np.testing.assert_allclose(fast[key], official[key], rtol=0, atol=1e-9)


def _nli(correct: np.ndarray) -> tuple[list[dict], list[dict]]:
    records = [{"guid": f"g{i}", "gold_label": "entailment"} for i in range(len(correct))]
    rows = [
        {"guid": f"g{i}", "label": "entailment" if right else "neutral"}
        for i, right in enumerate(correct)
    ]
    return records, rows


def test_accuracy_intervals_cover_the_true_accuracy_about_95_percent_of_the_time():
    """300 simulated dev sets of 400 pairs, each answered right with probability 0.8."""
    task = get_task("nli")
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(300):
        records, rows = _nli(rng.random(400) < 0.8)
        interval = bootstrap.run_intervals(task, records, rows)["intervals"]["accuracy"]
        covered += interval["low"] <= 80.0 <= interval["high"]
    assert 0.91 <= covered / 300 <= 0.98


def test_intervals_are_reproducible_and_recorded_with_their_method(smoke_dev):
    task = get_task("ner")
    records, rows = smoke_dev("ner")
    first = bootstrap.run_intervals(task, records, rows)
    assert first == bootstrap.run_intervals(task, records, rows)
    assert first["bootstrap"] == {"resamples": 1000, "seed": bootstrap.SEED, "unit": "sentence"}
    scores = task_module(task).score(records, index_predictions(task, records, rows))
    for key in ("entity_f1", "char_f1"):
        assert first["intervals"][key]["low"] < scores[key] < first["intervals"][key]["high"]


def _replicates(task, records, rows):
    predictions = index_predictions(task, records, rows)
    return task_module(task).score(records, predictions), bootstrap.replicates(
        task, records, predictions
    )


def test_the_paired_test_finds_no_difference_between_identical_systems():
    task = get_task("nli")
    records, rows = _nli(np.random.default_rng(1).random(500) < 0.7)
    scores, values = _replicates(task, records, rows)
    result = bootstrap.paired_difference(
        "accuracy",
        [scores["accuracy"]],
        [scores["accuracy"]],
        [values["accuracy"]],
        [values["accuracy"]],
    )
    assert result.difference == 0 and result.p_value == 1.0
    assert result.verdict == "not distinguishable with this dev set"


def test_the_paired_test_finds_a_clearly_better_system():
    task = get_task("nli")
    rng = np.random.default_rng(2)
    gold, (better, worse) = _nli(np.ones(500, bool))[0], (rng.random(500) < p for p in (0.85, 0.7))
    a_scores, a_values = _replicates(task, gold, _nli(better)[1])
    b_scores, b_values = _replicates(task, gold, _nli(worse)[1])
    args = (
        [a_scores["accuracy"]],
        [b_scores["accuracy"]],
        [a_values["accuracy"]],
        [b_values["accuracy"]],
    )
    result = bootstrap.paired_difference("accuracy", *args)
    assert result.p_value < 0.01 and result.low > 0 and result.verdict == "A is better"
    swapped = bootstrap.paired_difference("accuracy", args[1], args[0], args[3], args[2])
    assert swapped.verdict == "B is better" and swapped.high < 0


def test_seeds_widen_the_interval_when_they_disagree():
    """The two-stage bootstrap: one seed is the plain bootstrap; seeds that disagree add width."""
    values = np.random.default_rng(3).normal(70, 0.5, size=1000)
    assert np.array_equal(bootstrap.pooled([values]), values)
    agreeing = bootstrap.pooled([values, values, values])
    assert np.allclose(agreeing, values)
    disagreeing = bootstrap.pooled([values - 2, values, values + 2])
    width = np.subtract(*np.percentile(disagreeing, [97.5, 2.5]))
    assert width > 2 * np.subtract(*np.percentile(values, [97.5, 2.5]))
    assert abs(disagreeing.mean() - 70) < 0.3
