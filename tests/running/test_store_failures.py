"""The run step only stores: a run whose products cannot be stored (an invalid outcome, a full
disk) is recorded as that run's failure, and the sweep and the other runs in flight go on."""

import errno
import threading
import time

import nbformat

from kluebook.methods import interface as method_interface
from kluebook.recording import records
from kluebook.running import executors, run_plan, run_spec, run_store, runner
from kluebook.running.worker import RunProducts

NOTEBOOK = nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# R")]))


def _products(metrics: dict | None = None) -> RunProducts:
    done = RunProducts(started=time.time(), host="here", finished=time.time() + 1)
    outcome = {"model_revision": "m", "recipe": {}, "data_checksum": "d"}
    done.outcome = {**outcome, **({"metrics": metrics} if metrics is not None else {})}
    done.predictions, done.executed = b"", NOTEBOOK.encode()
    return done


class Scripted(executors.Executor):
    """Hands back what `produce_for` makes of each run, several runs at once; the runs other
    than `first` wait until `first` has been stored (or not), so they are in flight then."""

    def __init__(self, produce_for, first: str):
        self.concurrency = 3
        self.produce_for, self.first = produce_for, first
        self.first_stored = threading.Event()
        self.cancelled = False

    def produce(self, request):
        if request.name != self.first:
            assert self.first_stored.wait(timeout=60), "the first run was never stored"
        return self.produce_for(request)

    def cancel(self):
        self.cancelled = True


def _isolated(tmp_path, monkeypatch):
    monkeypatch.setattr(method_interface, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(method_interface, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(method_interface, "RUNS", tmp_path / "runs")
    return run_plan.plan("smoke", tasks=["ynat"], seeds=[1, 2, 3])


def test_an_invalid_outcome_is_that_runs_failure_and_the_others_are_stored(tmp_path, monkeypatch):
    specs = _isolated(tmp_path, monkeypatch)
    first = specs[0].name
    executor = Scripted(lambda r: _products(None if r.name == first else {"macro_f1": 1.0}), first)
    store = run_store.store

    def store_then_release(spec, *args):
        try:
            return store(spec, *args)
        finally:
            if spec.name == first:
                executor.first_stored.set()

    monkeypatch.setattr(run_store, "store", store_then_release)
    summary = runner.run_all(specs, log_output=False, executor=executor)
    assert [s.name for s in summary.failed] == [first]
    assert sorted(s.seed for s in summary.succeeded) == [2, 3] and not executor.cancelled
    failure = records.parse_record(specs[0].failure_path)
    assert failure.status == "failed"
    assert failure.error.startswith("storing the run failed: ValidationError")
    assert not specs[0].record_path.exists()
    for spec in specs[1:]:
        assert records.parse_record(spec.record_path).outcome.metrics == {"macro_f1": 1.0}
        assert not spec.notebook_path.exists()  # the report renders the pages, not the run


def test_a_full_disk_while_storing_one_run_fails_only_that_run(tmp_path, monkeypatch):
    specs = _isolated(tmp_path, monkeypatch)
    first = specs[0]
    executor = Scripted(lambda request: _products({"macro_f1": 1.0}), first.name)
    write = run_store.write_text_atomic

    def full_for_the_first(path, text):
        if first.executed_path.name in path.name:
            executor.first_stored.set()
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return write(path, text)

    earlier = _products({"macro_f1": 0.5})
    earlier.predictions = b'{"guid": "earlier"}\n'
    assert run_store.store(first, run_spec.spec_inputs(first), earlier) == "succeeded"
    kept = first.record_path.read_text()
    monkeypatch.setattr(run_store, "write_text_atomic", full_for_the_first)
    summary = runner.run_all(specs, force=True, log_output=False, executor=executor)
    assert [s.name for s in summary.failed] == [first.name] and not executor.cancelled
    assert len(summary.succeeded) == 2
    failure = records.parse_record(first.failure_path)
    assert "OSError" in failure.error and "No space left on device" in failure.error
    assert first.record_path.read_text() == kept  # the last success, its predictions and page
    predictions = first.record_path.with_suffix(".predictions.jsonl")
    assert predictions.read_text() == '{"guid": "earlier"}\n'
    assert sorted(p.name for p in first.record_path.parent.glob(".*")) == []  # nothing staged
    assert str(run_store.run_state(first)).startswith("current; the last attempt failed: storing")
