"""Intervals and comparisons use the data the run used: hub data at the commit it was pinned to,
files with the checksum it recorded; data that differ are a visible note, never a silent gap."""

import json

import pytest
from conftest import valid_record

from kluebook.book.klue_table import cell_html
from kluebook.data.loading import data_checksum, load_split
from kluebook.recording.records import RunRecord
from kluebook.results import compare
from kluebook.results.aggregation import reproduced_rows
from kluebook.results.compare import DataMismatch, record_gold
from kluebook.results.uncertainty import cell_title
from kluebook.tasks import get_task

YNAT = get_task("ynat")


def typed(fields: dict) -> RunRecord:
    """A record as `read_records` hands it on, from its file layout."""
    return RunRecord.model_validate(fields)


def _record(seed: int, checksum: str, predictions: str | None = None, **parameters) -> dict:
    record = valid_record({"seed": seed, "metrics": {"macro_f1": 50.0 + seed}}).as_dict()
    record["parameters"].update(parameters)
    kept = {"predictions": predictions} if predictions else {}
    return {**record, "data_checksum": checksum, **kept}


def test_the_gold_of_a_run_is_the_dev_set_it_scored_cut_to_its_limit():
    checksum = data_checksum(YNAT, "generated", None)
    gold = record_gold(YNAT, typed(_record(1, checksum, dev_limit=30)))
    assert gold == load_split(YNAT, "dev", "generated", None)[:30]


def test_data_that_are_not_those_the_run_scored_are_refused_by_name():
    with pytest.raises(DataMismatch, match=r"the ynat data here \(checksum [0-9a-f]{12}\) are not"):
        record_gold(YNAT, typed(_record(1, "0" * 64)))


def test_hub_gold_is_loaded_at_the_commit_the_run_was_pinned_to(monkeypatch):
    commit = "a" * 40
    asked = []
    monkeypatch.setattr(compare, "load_split", lambda *args: asked.append(args) or [])
    record = {**_record(1, f"hub:klue/klue/ynat@{commit}", data_revision=commit)}
    record["data_source"] = "hub"
    record_gold(YNAT, typed(record))
    assert asked == [(YNAT, "dev", "hub", None, commit)]
    record["parameters"]["data_revision"] = "b" * 40  # the run says one commit, scored another
    with pytest.raises(DataMismatch, match=f"hub:klue/klue/ynat@{'b' * 40}"):
        record_gold(YNAT, typed(record))


def _predictions(tmp_path, seed: int) -> str:
    """Predictions right on every other headline (from the seed's on), else a wrong topic."""
    gold = load_split(YNAT, "dev", "generated", None)
    topics = sorted({g["label"] for g in gold})
    lines = [
        json.dumps(
            {"guid": g["guid"], "label": g["label"] if (seed + i) % 2 else topics[i % 2]},
            ensure_ascii=False,
        )
        for i, g in enumerate(gold)
    ]
    (tmp_path / f"p{seed}.jsonl").write_text("\n".join(lines) + "\n")
    return f"p{seed}.jsonl"


def test_a_cell_of_several_seeds_says_why_it_has_no_interval(tmp_path):
    checksum = data_checksum(YNAT, "generated", None)
    runs = [_record(s, checksum, _predictions(tmp_path, s)) for s in (1, 2)]
    (row,) = reproduced_rows([typed(run) for run in runs], tmp_path)
    cell = row.cells[("ynat", "macro_f1")]
    assert cell.interval.low < cell.interval.high and not cell.no_interval
    other = [{**run, "data_checksum": "f" * 64} for run in runs]
    (row,) = reproduced_rows([typed(run) for run in other], tmp_path)
    cell = row.cells[("ynat", "macro_f1")]
    assert cell.interval is None
    assert cell.no_interval.startswith("the ynat data here (checksum ")
    assert cell_title(cell).startswith("no bootstrap interval: the ynat data here")
    # A short mark, linked to its one explanation below the table, its label the reason.
    marked = cell_html(row, cell, "", "p")
    assert 'href="#klue-mark-no-interval"' in marked
    assert 'aria-label="no interval: the ynat data here' in marked
    missing = [{**run, "predictions": "gone.jsonl"} for run in runs]
    (row,) = reproduced_rows([typed(run) for run in missing], tmp_path)
    why = row.cells[("ynat", "macro_f1")].no_interval
    expected = "the dev set or predictions cannot be read: cannot read gone.jsonl: No such file"
    assert why.startswith(expected)


def test_comparing_runs_on_data_that_are_not_here_is_a_one_line_error(tmp_path):
    runs = [
        {**_record(1, "f" * 64, _predictions(tmp_path, 1)), "config": "learning_rate=0.1"},
        {**_record(1, "f" * 64, _predictions(tmp_path, 2)), "config": "learning_rate=0.2"},
    ]
    with pytest.raises(DataMismatch, match="are not those the run kluebook/tiny-roberta seed 1"):
        compare.from_records(
            YNAT, [typed(run) for run in runs], "learning_rate=0.1", "learning_rate=0.2", tmp_path
        )
