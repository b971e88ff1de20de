"""Records written before the methods had an interface and the runs typed settings (a smoke run
of each method on ynat, made by commit 113be6a) are still read as they were: byte for byte on a
round trip, named and parameterised as the same run planned today, pooled into rows with their
method's words, their predictions read."""

import json
from pathlib import Path

import pytest

from kluebook.common.json_files import read_jsonl
from kluebook.common.paths import CONFIGS
from kluebook.recording import provenance, records
from kluebook.results import aggregation, pooling
from kluebook.running import run_plan, run_spec

OLD = Path(__file__).parent / "old_records"
# Each record, the name its run was given, and the plan that asks for the same run today.
RUNS = {
    "fine-tuned": ("smoke-kluebook--tiny-roberta-seed1", {"profile": "smoke", "seeds": [1]}),
    "prompted": (
        "smoke-kluebook--tiny-qwen3-prompted,dev_limit=20,shots=0-seed1",
        {"matrix_path": CONFIGS / "sweeps" / "prompted-smoke.yaml", "seeds": [1]},
    ),
}


@pytest.mark.parametrize("method", RUNS)
def test_an_old_record_round_trips_byte_for_byte_and_names_its_method(tmp_path, method):
    old = OLD / f"{method}.json"
    record = records.parse_record(old)
    assert record.method == method
    records.write_record(tmp_path / old.name, record)
    assert (tmp_path / old.name).read_bytes() == old.read_bytes()
    assert ("method" in json.loads(old.read_text())) == (method == "prompted")


@pytest.mark.parametrize("method", RUNS)
def test_an_old_record_is_the_run_planned_today_by_name_and_parameters(method):
    name, asked = RUNS[method]
    record = records.parse_record(OLD / f"{method}.json")
    again = run_spec.spec_of(record)
    assert again.name == name and again.method == method
    extra = {"shots": 0} if method == "prompted" else {}
    (today,) = [s for s in run_plan.plan(tasks=["ynat"], extra=extra, **asked) if s.name == name]
    assert today.config == ("" if record.is_default_config else record.config)
    assert provenance.portable_parameters(today.parameters()) == record.parameters
    assert today.parameters() == again.parameters()


def test_old_records_make_rows_in_their_methods_words_with_their_predictions():
    found = [records.parse_record(OLD / f"{method}.json") for method in RUNS]
    rows = aggregation.reproduced_rows(found, OLD)
    assert {(r.method, r.configuration) for r in rows} == {
        ("fine-tuned", ""),
        ("prompted", "prompted, 0 shots, dev_limit=20"),
    }
    assert [aggregation.run_shots(r) for r in found] == [None, 0]
    assert [pooling.made_with(r)[1:] for r in found] == [
        ("fine-tuned", ""),
        ("prompted", "standard"),
    ]
    for method in RUNS:
        lines = read_jsonl(OLD / f"{method}.predictions.jsonl")
        assert lines and all("guid" in line for line in lines)
