"""Prompted runs through the runner, in a scratch copy of the book: the prompted smoke matrix
runs every task with the tiny causal LM, each record holds every official metric and the
unparsable count, and `kluebook compare` answers for a fine-tuned and a prompted NLI run."""

import json
import shutil
from types import SimpleNamespace

import pytest

from kluebook.common.json_files import read_jsonl
from kluebook.methods import prompted as prompted_method
from kluebook.methods.prompted import template_digest
from kluebook.prompting.registry import task_template
from kluebook.recording import fingerprints, records
from kluebook.tasks import available_tasks, get_task

pytestmark = pytest.mark.slow
TASKS = available_tasks()
# The configuration labels of the 5-shot runs on the first 10 dev items, and of a fine-tuned
# NLI run on the same items (trained on 200 pairs, to keep the test short).
PROMPTED = "prompted,dev_limit=10,shots=5"
FINE_TUNED = "dev_limit=10,train_limit=200"
SETTINGS = ("--set", "shots=5", "--set", "dev_limit=10")
# Metrics a 10-item slice may leave undefined: RE's AUPRC without a positive relation in it.
UNDEFINED_ON_A_SLICE = {("re", "auprc")}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory, new_book, kluebook):
    """A book root where every task ran prompted (5 shots) and NLI ran fine-tuned too."""
    root = new_book(tmp_path_factory.mktemp("book"))
    prompted = kluebook(
        root, "run", "--matrix", "prompted-smoke", *SETTINGS, "--quiet", "--jobs", "2"
    )
    fine_tuned = kluebook(
        root,
        "run",
        "--tasks",
        "nli",
        "--seeds",
        "1",
        "--quiet",
        *("--set", "dev_limit=10", "--set", "train_limit=200"),
    )
    return root, prompted, fine_tuned


def prompted_record(root, task):
    path = root / "results/smoke" / task / f"kluebook--tiny-qwen3-{PROMPTED}-seed1.json"
    return json.loads(path.read_text())


def test_the_matrix_plans_both_shot_counts_under_names_of_their_own(kluebook, scratch_book):
    planned = kluebook(scratch_book, "run", "--matrix", "prompted-smoke", "--dry-run")
    assert planned.returncode == 0, planned.stderr
    runs = [line.split()[2:4] for line in planned.stdout.splitlines() if "would execute:" in line]
    assert len(runs) == len({tuple(run) for run in runs}) == 2 * len(TASKS)
    assert {task for task, _ in runs} == set(TASKS)
    assert all("-prompted," in name for _, name in runs)
    assert {name.rsplit("shots=", 1)[1] for _, name in runs} == {"0-seed1:", "5-seed1:"}


def test_every_task_runs_prompted_and_records_its_official_metrics(scratch):
    root, prompted, _ = scratch
    assert prompted.returncode == 0, prompted.stdout + prompted.stderr
    for task in TASKS:
        record = prompted_record(root, task)
        assert record["status"] == "succeeded", task
        assert record["method"] == "prompted" and record["config"] == PROMPTED
        metrics = record["metrics"]
        assert set(metrics) >= {m.key for m in get_task(task).metrics}, task
        undefined = {k for k, v in metrics.items() if v is None}
        assert {(task, k) for k in undefined} <= UNDEFINED_ON_A_SLICE, (task, metrics)
        facts = record["prompted"]
        assert facts["shots"] == 5 and facts["demonstration_seed"] == 1
        assert 0 <= facts["unparsable"] <= record["counts"]["dev"]  # items: WoS counts turns
        prefix = task_template(task).answer_prefix
        assert facts["first_prompt"].count(prefix) >= 6  # five answered demonstrations, a query
        assert facts["first_parsed"] and facts["first_answer"] is not None
        assert facts["template_digest"] == record["inputs"]["template"]
        usage = facts["usage"]  # one request a dev item (WoS: a turn), none from a cache
        assert usage["requests"] >= 10 and usage["cache_hits"] == 0, task
        assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0, task
        assert record["answering_wall_time_s"] > 0 and record["answering_tokens_per_second"] > 0
        if facts["mode"] == "rank":  # WordPiece tokens stop at the space: none crossed
            assert facts["rank_normalisation"] == "none" and facts["boundary_crossings"] == 0
            stem = f"kluebook--tiny-qwen3-{PROMPTED}-seed1"
            lines = read_jsonl(root / "results/smoke" / task / f"{stem}.predictions.jsonl")
            assert lines and all(len(line["choice_logprobs"]) > 1 for line in lines), task


def test_a_rerun_executes_nothing_and_status_lists_the_prompted_runs(kluebook, scratch):
    root, _, _ = scratch
    again = kluebook(root, "run", "--matrix", "prompted-smoke", *SETTINGS, "--quiet")
    assert f"0 succeeded, {len(TASKS)} skipped" in again.stdout, again.stdout + again.stderr
    status = kluebook(root, "status", "--matrix", "prompted-smoke", *SETTINGS)
    assert status.returncode == 0, status.stderr
    assert status.stdout.count("current") >= len(TASKS), status.stdout


def test_a_prompt_template_is_an_input_of_prompted_runs_only(tmp_path, scratch, monkeypatch):
    folder = tmp_path / "nli"
    shutil.copytree(get_task("nli").folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    copy = SimpleNamespace(name="nli", folder=folder)
    before = (fingerprints.task_code_hash(copy), template_digest(copy))
    brief = template_digest(copy, "brief")
    template = folder / "prompts" / "standard.yaml"
    template.write_text(template.read_text(encoding="utf-8") + "\n# an edit\n")
    assert fingerprints.task_code_hash(copy) == before[0]  # fine-tuned runs do not read it
    assert template_digest(copy) != before[1]
    assert template_digest(copy, "brief") == brief  # nor the other templates' runs
    root, _, fine_tuned = scratch
    assert fine_tuned.returncode == 0, fine_tuned.stdout + fine_tuned.stderr
    task = get_task("nli")
    prompted = records.parse_record(
        root / "results/smoke/nli" / f"kluebook--tiny-qwen3-{PROMPTED}-seed1.json"
    )
    tuned = records.parse_record(
        root / "results/smoke/nli" / f"kluebook--tiny-roberta-{FINE_TUNED}-seed1.json"
    )
    assert (
        fingerprints.stale_inputs(prompted.inputs, fingerprints.current_code(task, "prompted"))
        == []
    )
    monkeypatch.setattr(
        prompted_method, "template_digest", lambda task, name="standard": f"an edited {name}"
    )
    assert fingerprints.stale_inputs(
        prompted.inputs, fingerprints.current_code(task, "prompted")
    ) == ["prompt template"]
    assert fingerprints.stale_inputs(tuned.inputs, fingerprints.current_code(task)) == []


def test_compare_answers_for_a_fine_tuned_and_a_prompted_nli_configuration(kluebook, scratch):
    root, _, _ = scratch
    compared = kluebook(root, "compare", FINE_TUNED, PROMPTED, "--task", "nli")
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert f"A = {FINE_TUNED} (1 seed), B = {PROMPTED} (1 seed)" in compared.stdout
    assert "paired bootstrap over 10" in compared.stdout
    (row,) = [line for line in compared.stdout.splitlines() if line.startswith("Accuracy")]
    verdicts = ("A is better", "B is better", "not distinguishable")
    assert any(verdict in row for verdict in verdicts), compared.stdout
