"""Ranked prompted runs with the tiny causal LM, through the runner: each record keeps the
calibration of its ranking and both corrections of its template beside the uncorrected metrics,
and a run's page shows them, labelled as corrections, with a reliability diagram."""

import nbformat
import pytest

from kluebook.book.run_pages import render_page
from kluebook.common.json_files import read_jsonl
from kluebook.prompting.calibration import BINS, calibration
from kluebook.recording import records
from kluebook.running.run_spec import spec_of
from kluebook.tasks import get_task
from kluebook.tasks.prompt_answers import choice_probabilities

pytestmark = pytest.mark.slow
NAME = "kluebook--tiny-qwen3-prompted,dev_limit=12,shots=2-seed1"
RANKED = ("ynat", "nli", "sts", "re")


@pytest.fixture(scope="module")
def nli_run(tmp_path_factory, new_book, kluebook):
    root = new_book(tmp_path_factory.mktemp("book"))
    settings = ("--set", "shots=2", "--set", "dev_limit=12")
    tasks = ",".join([*RANKED, "ner"])  # and one answered by generation
    ran = kluebook(root, "run", "--method", "prompted", "--tasks", tasks, *settings, "--quiet")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return root, records.parse_record(root / "results/smoke/nli" / f"{NAME}.json")


def test_every_ranked_task_records_its_calibration_and_both_corrections_and_no_other(nli_run):
    root, _ = nli_run
    for task in RANKED:
        record = records.parse_record(root / "results/smoke" / task / f"{NAME}.json")
        prompted, keys = record.outcome.prompted, {m.key for m in get_task(task).metrics}
        assert sum(b.count for b in prompted.calibration.bins) == 12, task
        assert set(prompted.corrections) == {"contextual", "pmi"}, task
        for found in prompted.corrections.values():
            assert set(found.metrics) >= keys and len(found.measured) > 1, task
    generated = records.parse_record(root / "results/smoke/ner" / f"{NAME}.json")
    assert generated.outcome.prompted.mode == "generate"
    assert generated.outcome.prompted.calibration is generated.outcome.prompted.corrections is None


def test_the_record_keeps_calibration_and_each_correction_beside_the_uncorrected(nli_run):
    root, record = nli_run
    prompted, task = record.outcome.prompted, get_task("nli")
    assert record.status == "succeeded" and prompted.mode == "rank"
    # The run's own calibration, recomputed from the choice log-likelihoods it kept.
    lines = read_jsonl(root / "results/smoke/nli" / f"{NAME}.predictions.jsonl")
    choices = ("참", "거짓", "알 수 없음")
    labels = ("entailment", "contradiction", "neutral")
    probabilities = [choice_probabilities(choices, line["choice_logprobs"]) for line in lines]
    assert len(prompted.calibration.bins) == BINS
    assert sum(b.count for b in prompted.calibration.bins) == len(lines) == 12
    assert 0 <= prompted.calibration.ece <= 1 and 0 <= prompted.calibration.brier <= 2
    assert set(prompted.corrections) == {"contextual", "pmi"}
    metric_keys = {m.key for m in task.metrics}
    for name, found in prompted.corrections.items():
        assert set(found.metrics) >= metric_keys, name
        assert sum(b.count for b in found.calibration.bins) == 12
        assert set(found.measured) == set(choices)
    assert sum(prompted.corrections["contextual"].measured.values()) == pytest.approx(1, abs=1e-3)
    # Each correction's own requests are counted apart from the answering's: three content-free
    # queries for the prior, one answer-prefix prompt for PMI, each scoring every choice.
    assert prompted.corrections["contextual"].usage.requests == 3
    assert prompted.corrections["pmi"].usage.requests == 1
    # The headline is the uncorrected ranking: the run's metrics are its predictions' own.
    for line in lines:  # every line's label is its own best-scored choice, uncorrected
        best = max(line["choice_logprobs"], key=line["choice_logprobs"].get)
        assert line["label"] == labels[choices.index(best)]
    confident = [max(p) for p in probabilities]
    shown = calibration(probabilities, [0] * 12)["bins"]  # the bins depend on confidence only
    assert [b["count"] for b in shown] == [b.count for b in prompted.calibration.bins]
    assert [b["confidence"] for b in shown] == [b.confidence for b in prompted.calibration.bins]
    assert min(confident) >= 1 / 3


def test_the_page_shows_calibration_and_the_corrections_as_corrections(nli_run):
    root, record = nli_run
    page = render_page(record, spec_of(record), root)
    cells = nbformat.read(page, as_version=4).cells
    card = next(c.source for c in cells if c.cell_type == "markdown" and "Calibration" in c.source)
    prompted = record.outcome.prompted
    assert f"ECE {prompted.calibration.ece:.3f} over 10 equal-width confidence bins" in card
    assert "uncorrected: the run's scores" in card
    assert "corrected by contextual calibration, not the run's scores" in card
    assert "corrected by PMI scoring, not the run's scores" in card
    section = next(i for i, c in enumerate(cells) if c.source.startswith("## Calibration"))
    drawn = [o for c in cells[section:] if c.cell_type == "code" for o in c.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in drawn)  # the reliability diagram
    assert any("corrected: pmi" in o.get("data", {}).get("text/html", "") for o in drawn)
