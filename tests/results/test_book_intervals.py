"""What the book shows of the intervals: cell hover text, run cards, task pages, and the mark on
a best value that its runner-up cannot be told from."""

import numpy as np
from conftest import valid_record

from kluebook.book.klue_marks import emphasis
from kluebook.book.klue_table import Section, table_html
from kluebook.recording.records import Interval
from kluebook.results.aggregation import Cell, Row
from kluebook.results.uncertainty import cell_title, resolution_text, runner_up_ties, scores_text
from kluebook.tasks import get_task

NLI = get_task("nli")
COLS = [(NLI, NLI.metrics[0])]


def _row(label: str, values: list[float], replicates: list[np.ndarray]) -> Row:
    cell = Cell(values, [(seed, None) for seed in range(1, len(values) + 1)])
    cell.seed_replicates = replicates
    return Row(
        label, "reproduced", "base", "dev", {("nli", "accuracy"): cell}, label, "paper", "official"
    )


def _rows(gap: float) -> list[Row]:
    """Two configurations whose resampled values share the dev set's noise, `gap` apart."""
    shared = np.random.default_rng(0).normal(0, 1.5, 1000)
    own = np.random.default_rng(1).normal(0, 0.3, (2, 1000))
    return [
        _row("a/model", [80.0 + gap], [80.0 + gap + shared + own[0]]),
        _row("b/model", [80.0], [80.0 + shared + own[1]]),
    ]


def test_a_best_value_inside_the_noise_is_marked_as_not_distinguishable():
    rows = _rows(gap=0.2)
    notes = runner_up_ties(rows, emphasis(rows, COLS), COLS)
    assert list(notes) == [(0, "nli/accuracy")]
    assert notes[0, "nli/accuracy"].startswith("best, but not distinguishable from the runner-up")
    html = table_html([Section("Reproduced: paper profile, dev", rows)], [NLI], "book/results")
    assert '80.20</em></strong><span class="tie" title="best, but not' in html


def test_a_clearly_best_value_is_not_marked():
    rows = _rows(gap=3.0)
    assert runner_up_ties(rows, emphasis(rows, COLS), COLS) == {}
    html = table_html([Section("Reproduced: paper profile, dev", rows)], [NLI], "book/results")
    assert "83.00</em></strong>" in html and 'class="tie"' not in html


def test_cells_and_run_cards_show_the_interval():
    cell = Cell([70.0, 71.0], [(1, None), (2, None)], interval=Interval(low=68.5, high=72.25))
    assert cell_title(cell) == (
        "95% bootstrap interval 68.50–72.25 (resampling the dev set and the 2 seeds)"
    )
    assert cell_title(Cell([70.0])) == ""
    record = valid_record(
        {
            "task": "nli",
            "metrics": {"accuracy": 80.125},
            "intervals": {"accuracy": {"low": 78.7, "high": 81.6}},
        }
    )
    assert scores_text(NLI, record) == "Accuracy 80.12 (95% CI 78.70–81.60)"
    plain = valid_record({"task": "nli", "metrics": {"accuracy": 80.0}})
    assert scores_text(NLI, plain) == "Accuracy 80.00"


def test_a_task_page_says_what_difference_its_dev_set_resolves():
    records = [
        valid_record(
            {
                "task": "nli",
                "profile": "smoke",
                "data_source": "generated",
                "counts": {"dev": 200},
                "intervals": {"accuracy": {"low": 70.0, "high": 70.0 + width}},
            }
        )
        for width in (10.0, 12.0, 20.0)
    ]
    text = resolution_text(NLI, records)
    assert "| smoke | generated | 200 | Accuracy ± 6.00 |" in text
    assert "resampling the dev set by sentence pair" in text
    assert "No run with bootstrap intervals yet" in resolution_text(NLI, [])


def test_a_stale_cell_is_never_marked_best_nor_ranked_runner_up():
    rows = _rows(gap=3.0)
    rows.append(_row("c/model", [90.0], [90.0 + np.zeros(1000)]))
    rows[2].cells["nli", "accuracy"].stale = "task code"
    marks = emphasis(rows, COLS)
    assert marks[0, "nli/accuracy"] == "bi" and (2, "nli/accuracy") not in marks
    rows[0].cells["nli", "accuracy"].stale = "notebook"
    assert emphasis(rows, COLS) == {}  # one current value left: nothing to compare it with


def test_a_prompted_row_is_never_ranked_against_the_fine_tuned_ones():
    rows = _rows(gap=3.0)
    rows.append(_row("c/model", [95.0], [95.0 + np.zeros(1000)]))
    rows[2].method = "prompted"
    marks = emphasis(rows, COLS)
    assert marks[0, "nli/accuracy"] == "bi" and (2, "nli/accuracy") not in marks
    assert 2 not in {row for row, _ in runner_up_ties(rows, marks, COLS)}
    rows[2].method = "fine-tuned"
    assert emphasis(rows, COLS)[2, "nli/accuracy"] == "bi"  # the same row, fine-tuned, is best
