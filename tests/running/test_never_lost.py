"""Numbers that hold: a failed or interrupted rerun never replaces a good result, a cell pools
only runs made from the same current inputs, an unreadable record is named and never crashes the
report, `kluebook status` says which input changed, and a local checkpoint is named by content.
"""

import json
import textwrap

import nbformat
import pytest
from conftest import valid_record
from pydantic import ValidationError

from kluebook.book.status_page import render_status
from kluebook.methods import interface as method_interface
from kluebook.recording import kept_notebook, provenance, records
from kluebook.results import aggregation
from kluebook.running import run_plan, run_spec, run_store
from kluebook.training import checkpoints

# Stores a success made by older task code, then a failed rerun made by today's code, the way
# `kluebook run` stores what a run produced; then writes every generated page.
SUCCEED_THEN_FAIL = """
import time, nbformat
from kluebook.recording import records
from kluebook.running import run_plan, run_spec, run_store
from kluebook.book.report import write_generated
from kluebook.running.worker import RunProducts

spec = run_plan.plan("smoke", tasks=["ynat"], seeds=[1])[0]
today = run_spec.spec_inputs(spec)
notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# YNAT")])
done = RunProducts(started=time.time(), host="here", finished=time.time() + 5)
done.outcome = {"model_revision": "built locally", "recipe": {"epochs": 1},
                "metrics": {"macro_f1": 77.0, "accuracy": 80.0}, "data_checksum": today.data}
done.predictions = b'{"guid": "a", "label": 1}\\n'
done.executed = nbformat.writes(notebook).encode()
older = today.model_copy(update={"task_code": "0" * 64})
assert run_store.store(spec, older, done) == "succeeded"
broken = RunProducts(started=time.time(), host="here", finished=time.time() + 1)
broken.error, broken.traceback = "OutOfMemoryError: CUDA out of memory", "Traceback: ..."
assert run_store.store(spec, today, broken) == "failed"
write_generated()
print(run_store.run_state(spec))
"""


def test_a_failed_rerun_after_a_code_change_keeps_the_result_its_page_and_predictions(
    kluebook, scratch_book
):
    root = scratch_book
    done = kluebook.python(root, SUCCEED_THEN_FAIL)
    assert done.returncode == 0, done.stderr
    state = done.stdout.strip().splitlines()[-1]
    assert state == (
        "stale (task code changed); the last attempt failed: OutOfMemoryError: CUDA out of memory"
    )
    folder = root / "results/smoke/ynat"
    kept = json.loads((folder / "kluebook--tiny-roberta-seed1.json").read_text())
    assert kept["status"] == "succeeded" and kept["metrics"]["macro_f1"] == 77.0
    assert (folder / "kluebook--tiny-roberta-seed1.predictions.jsonl").read_text()
    failure = json.loads((folder / "kluebook--tiny-roberta-seed1.failed.json").read_text())
    assert failure["status"] == "failed" and "metrics" not in failure
    assert failure["fingerprint"] != kept["fingerprint"] and failure["finished_at"]
    page = root / "book/runs/ynat/smoke-kluebook--tiny-roberta-seed1.ipynb"
    cells = nbformat.read(page, as_version=4).cells
    heading = next(c for c in cells if c.source.startswith("# "))  # the page opens with it
    assert "Stale: its task code changed since this run" in heading.source
    assert cells[-1].source.startswith("## Run card")
    table = (root / "book/_generated/results.md").read_text()
    assert "77.00" in table and "stale: task code changed" in table
    assert 'href="runs/ynat/smoke-kluebook--tiny-roberta-seed1.html#items"' in table
    status = (root / "book/_generated/status.md").read_text()
    assert "**stale**: task code changed" in status
    assert "OutOfMemoryError: CUDA out of memory (its result of" in status
    assert "stays in the book" in status
    assert "its last good result stays in the table" in table


def test_a_cell_pools_only_the_runs_made_by_the_current_code(tmp_path):
    current = [valid_record({"seed": s, "metrics": {"macro_f1": v}}) for s, v in [(1, 80), (2, 90)]]
    older = current[0].inputs.model_copy(update={"shared_code": "0" * 64})
    stale = valid_record({"seed": 3, "metrics": {"macro_f1": 10.0}, "inputs": older.model_dump()})
    (row,) = aggregation.reproduced_rows([*current, stale], tmp_path)
    cell = row.cells[("ynat", "macro_f1")]
    assert (cell.values, cell.stale, cell.not_pooled) == ([80.0, 90.0], "", 1)
    (row,) = aggregation.reproduced_rows([stale], tmp_path)  # no current run: shown, stale
    cell = row.cells[("ynat", "macro_f1")]
    assert (cell.values, cell.stale, cell.not_pooled) == ([10.0], "shared code", 0)
    from kluebook.book.klue_table import cell_html

    assert "1 older run not pooled" in cell_html(
        row, aggregation.Cell([85.0], [(1, None)], not_pooled=1), "", "book/results"
    )


def test_a_cut_short_or_foreign_record_is_named_in_one_warning_and_listed(tmp_path, capsys):
    results = tmp_path / "results"
    records.write_record(results / "good.json", valid_record({}))
    (results / "cut.json").write_text('{"schema": 2, "status": "succ')
    (results / "foreign.json").write_text('{"name": "something else"}')
    found, unreadable = records.read_records(results)
    assert len(found) == 1
    assert [u.path.rsplit("/", 1)[-1] for u in unreadable] == ["cut.json", "foreign.json"]
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 2 and all(w.startswith("warning: ") for w in warnings)
    assert "cut.json: not valid JSON" in warnings[0]
    assert "foreign.json: not a run record of schema 2" in warnings[1]
    status = render_status(found, tmp_path, unreadable)
    assert "## Unreadable records" in status and "foreign.json`: not a run record" in status


def test_a_record_is_one_schema_for_success_and_failure():
    gpu = {"cuda_visible_device": "0", "name": "NVIDIA H100"}
    good = valid_record({"devices": [gpu], "metrics": {"macro_f1": 1.0}}).as_dict()
    intervals = {"intervals": {"macro_f1": {"low": 0.5, "high": 1.5}}}
    bootstrap = {"bootstrap": {"resamples": 1000, "seed": 0, "unit": "example"}}
    assert records.RunRecord.model_validate({**good, **intervals, **bootstrap})
    with pytest.raises(ValidationError, match="surprise"):
        records.RunRecord.model_validate({**good, "surprise": 1})  # not a field of an outcome
    failed = valid_record({"status": "interrupted", "error": "Interrupted: cancelled"}).as_dict()
    assert failed["status"] == "interrupted" and "metrics" not in failed
    with pytest.raises(ValidationError, match="has no outcome"):
        records.RunRecord.model_validate({**failed, "metrics": {"macro_f1": 1.0}})
    with pytest.raises(ValidationError, match="fingerprint"):
        records.RunRecord.model_validate({**good, "fingerprint": "edited"})


def test_status_says_which_input_changed(tmp_path, monkeypatch):
    monkeypatch.setattr(method_interface, "RESULTS", tmp_path / "results")
    spec = run_plan.plan("smoke", tasks=["ynat"], seeds=[1])[0]
    assert str(run_store.run_state(spec)) == "missing"
    today = run_spec.spec_inputs(spec)
    fields = {"inputs": today.model_dump(), "metrics": {"macro_f1": 1.0}}
    records.write_record(spec.record_path, valid_record(fields))
    spec.executed_path.write_text("{}")
    assert str(run_store.run_state(spec)) == "current"
    older = today.model_copy(update={"notebook": "0" * 64, "task_version": 0})
    records.write_record(spec.record_path, valid_record({**fields, "inputs": older.model_dump()}))
    assert str(run_store.run_state(spec)) == "stale (notebook, task version changed)"
    spec.record_path.unlink()
    failed = {"status": "failed", "error": "ValueError: boom", "inputs": today.model_dump()}
    records.write_record(spec.failure_path, valid_record(failed))
    assert str(run_store.run_state(spec)) == "failed (ValueError: boom)"
    spec.record_path.write_text('{"status": "succ')
    assert str(run_store.run_state(spec)).startswith("unreadable (not valid JSON")


def test_a_local_checkpoint_is_named_by_its_folder_and_files_not_its_path(tmp_path):
    folder = tmp_path / "deep" / "cache" / "standin-roberta"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "roberta"}')
    name = checkpoints.model_id(str(folder))
    assert name.startswith("standin-roberta@") and len(name) == len("standin-roberta@") + 12
    spec = run_plan.plan("smoke", tasks=["ynat"], models=[str(folder)], seeds=[1])[0]
    assert spec.record_path.name == f"standin-roberta-{name[-12:]}-seed1.json"
    assert str(tmp_path) not in str(spec.notebook_path) + str(spec.record_path)
    parameters = provenance.portable_parameters(spec.parameters())
    assert parameters["model"] == name and str(tmp_path) not in json.dumps(parameters)
    cell = nbformat.v4.new_code_cell(f'model = "{folder}"\nprint("loaded {folder}")')
    executed = nbformat.writes(nbformat.v4.new_notebook(cells=[cell])).encode()
    kept = kept_notebook.clean_notebook(executed, spec)  # what the run keeps, its page's source
    assert str(tmp_path) not in kept and f'model = \\"{name}\\"' in kept
    checkpoints.folder_digest.cache_clear()
    (folder / "config.json").write_text('{"model_type": "roberta", "changed": 1}')
    assert checkpoints.model_id(str(folder)) != name  # another checkpoint is another model


def test_the_page_layout_is_rendered_again_from_the_kept_notebook(kluebook, scratch_book):
    script = textwrap.dedent(
        """
        import time, nbformat
        from kluebook.book import run_pages
        from kluebook.running import run_plan, run_spec, run_store
        from kluebook.book.report import write_run_pages
        from kluebook.recording.records import read_records
        from kluebook.running.worker import RunProducts

        spec = run_plan.plan("smoke", tasks=["ynat"], seeds=[1])[0]
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# YNAT")])
        done = RunProducts(started=time.time(), host="here", finished=time.time())
        done.outcome = {"model_revision": "m", "recipe": {}, "metrics": {"macro_f1": 1.0},
                        "data_checksum": "d"}
        done.predictions, done.executed = b"", nbformat.writes(notebook).encode()
        run_store.store(spec, run_spec.spec_inputs(spec), done)
        card = run_pages.card
        run_pages.card = lambda spec, record: card(spec, record) + "A NEW LINE OF THE CARD"
        write_run_pages(read_records().records)
        print(nbformat.read(spec.notebook_path, as_version=4).cells[-1].source)
        """
    )
    done = kluebook.python(scratch_book, script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("A NEW LINE OF THE CARD")  # no run executed again
