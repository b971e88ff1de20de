"""A run's files in the book root: what it produced, written (`store`; a failure beside the last
success, never over it: `store_failure`), and where a run stands from them (`is_done`,
`run_state`)."""

import os
from dataclasses import dataclass

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_text_atomic
from kluebook.methods.interface import book_relative
from kluebook.recording import fingerprints, records, redaction
from kluebook.recording.kept_notebook import clean_notebook
from kluebook.running.run_spec import RunSpec, spec_inputs
from kluebook.running.worker import RunProducts


def store(spec: RunSpec, run_inputs: fingerprints.Inputs, products: RunProducts) -> str:
    """Write a run's files into this checkout, each atomically, the record last: a run whose
    record is not written is not done, and the next sweep executes it again; one whose files
    cannot all be written leaves its last success's as they were. A run that failed
    is recorded beside the last success (`store_failure`), which it never replaces."""
    if not products.succeeded:
        return store_failure(spec, run_inputs, products)
    facts = {
        "method": spec.method,
        "config": spec.config or records.DEFAULT_CONFIG,
        "overrides": spec.extra,
        "host": products.host,
        "kernel_environment": products.kernel_env,
    }
    record = records.run_record(
        spec.task,
        spec.parameters(),
        run_inputs,
        products.started,
        products.finished,
        outcome=products.outcome,
        notebook=book_relative(spec.notebook_path),
        executed=book_relative(spec.executed_path),
        predictions=book_relative(spec.predictions_path),
        **facts,
    )
    files = {
        spec.predictions_path: products.predictions.decode("utf-8"),
        spec.executed_path: clean_notebook(products.executed, spec),
    }
    staged = {path: path.with_name(f".{path.name}.staged") for path in files}
    try:  # all written before any replaces the last success's (a full disk stops it first)
        for path, text in files.items():
            write_text_atomic(staged[path], text)
        for path, staging in staged.items():
            os.replace(staging, path)
    finally:
        for staging in staged.values():
            staging.unlink(missing_ok=True)
    records.write_record(spec.record_path, record)
    spec.failure_path.unlink(missing_ok=True)  # superseded by this success
    return "succeeded"


def store_failure(
    spec: RunSpec, run_inputs: fingerprints.Inputs, products: RunProducts, status: str = "failed"
) -> str:
    """Record a run that failed or was interrupted (`status`) beside its last success, whose
    record, page and predictions stay; the notebook as far as it got is kept in the cache."""
    files = {}
    if products.executed is not None:
        staging = spec.output_dir / "executed.ipynb"
        write_text_atomic(staging, products.executed.decode("utf-8"))
        files = {"failed_notebook": book_relative(staging)}
    record = records.run_record(
        spec.task,
        spec.parameters(),
        run_inputs,
        products.started,
        products.finished,
        failure=(products.error, products.traceback),
        status=status,
        method=spec.method,
        config=spec.config or records.DEFAULT_CONFIG,
        overrides=spec.extra,
        host=products.host,
        **files,
    )
    records.write_record(spec.failure_path, record)
    return "failed"


def store_storing_error(
    spec: RunSpec, run_inputs: fingerprints.Inputs, products: RunProducts, error: Exception, say
) -> str:
    """Record a run whose products could not be stored (`error`, raised by `store`) as failed,
    with the error that stopped it; where even that record cannot be written, say why. Either
    way nothing of this attempt replaces the run's last success."""
    failed = RunProducts(started=products.started, host=products.host, finished=products.finished)
    failed.executed = products.executed
    error_line, failed.traceback = redaction.describe_error(error, spec.parameters())
    failed.error = f"storing the run failed: {error_line}"
    try:
        return store_failure(spec, run_inputs, failed)
    except Exception as again:  # the disk is still full, say
        again_line, _ = redaction.describe_error(again, spec.parameters())
        say(
            f"  {spec.task.name} {spec.name}: {failed.error}; its failure could not be recorded "
            f"either ({again_line})"
        )
        return "failed"


def is_done(spec: RunSpec, fingerprint: str) -> bool:
    """Whether the run's last success was made from these inputs and its notebook is kept."""
    record = records.read_record(spec.record_path)
    return (
        record is not None
        and record.status == "succeeded"
        and record.fingerprint == fingerprint
        and spec.executed_path.exists()
    )


@dataclass(frozen=True)
class State:
    """Where a run of a matrix stands: current, stale, failed or missing, and why."""

    state: str
    why: str = ""
    failure: records.RunRecord | None = None  # the last attempt, if it failed after the success

    def __str__(self) -> str:
        text = self.state + (f" ({self.why})" if self.why else "")
        if self.failure is not None and self.state in ("current", "stale", "unchecked"):
            text += f"; the last attempt {self.failure.status}: {self.failure.error}"
        return text


def run_state(spec: RunSpec) -> State:
    """A run's state: `current` (its last success was made from today's inputs), `stale` (made
    from inputs that have changed since: which ones), `failed` (no success, a failure or an
    interruption recorded), `missing` (never run), `unreadable` (its record is not one) or
    `unchecked` (its data are not here to compare)."""
    try:
        record = records.parse_record(spec.record_path) if spec.record_path.exists() else None
    except KluebookError as error:
        return State("unreadable", str(error).removeprefix(f"{spec.record_path}: "))
    failure = records.read_record(spec.failure_path)
    try:
        now = spec_inputs(spec)
    except KluebookError as error:  # the data are not on this machine
        now, unavailable = None, str(error)
    if record is None:
        if failure is not None:
            return State(failure.status, failure.error, failure)
        return State("missing")
    if failure is not None and failure.finished_at < record.finished_at:
        failure = None  # an attempt that failed before the success
    if now is None:
        return State("unchecked", unavailable, failure)
    if record.fingerprint == now.fingerprint and spec.executed_path.exists():
        return State("current", failure=failure)
    changed = record.inputs.changed(now)
    why = ", ".join(changed) + " changed" if changed else "its executed notebook is missing"
    return State("stale", why, failure)
