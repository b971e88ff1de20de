"""The sweep: executing the runs of a plan (`kluebook.running.run_plan`) with papermill, one after
another or several at once, going on after a failure.

Each run that succeeds leaves its record, predictions and executed notebook in
results/<profile>/<task>/ (`kluebook.running.run_store`; `kluebook report` renders its page from
them). A run whose record already holds the same fingerprint is skipped. A run that fails, is
interrupted or cannot be stored is recorded beside the last good one (`<name>.failed.json`),
never over it, and the others go on. Where a run executes is an executor's business
(kluebook.running.executors: here one at a time or several at once; cluster_executors: on a Dask
cluster); what it produced comes back as data (kluebook.running.worker) and is written here, the
same way for every executor.
"""

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from filelock import FileLock, Timeout
from tqdm.auto import tqdm

from kluebook.recording import records, redaction
from kluebook.running import executors, run_store
from kluebook.running.kernels import stop_kernels
from kluebook.running.run_spec import RunSpec, run_request
from kluebook.running.worker import Interrupted, RunProducts, RunRequest, produce


def execute(
    spec: RunSpec,
    force: bool = False,
    log_output: bool = True,
    say=print,
    produce_with: Callable[[RunRequest], RunProducts] = produce,
) -> str:
    """Run one notebook and write its record; return 'skipped', 'succeeded' or 'failed'.

    `produce_with` executes the request where it runs (this process, by default; an executor's
    slot or a Dask worker otherwise) and returns its products, which are written here.

    A lock per run keeps two runners on one checkout from running it twice: the second waits
    for the first, then finds the run done and skips it.
    """
    request, run_inputs = run_request(spec, log_output)
    fingerprint = run_inputs.fingerprint
    if not force and run_store.is_done(spec, fingerprint):
        return "skipped"
    spec.lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(spec.lock_path)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        say(f"  waiting: another runner is executing {spec.task.name} {spec.name}")
        lock.acquire()
    with lock:
        if not force and run_store.is_done(spec, fingerprint):
            return "skipped"
        started = time.time()
        try:
            products = produce_with(request)
        except (Interrupted, KeyboardInterrupt):
            stop_kernels()
            stopped = RunProducts(started=started, host="", finished=time.time())
            stopped.error = "Interrupted: the sweep was stopped (Ctrl-C) during this run"
            stopped.traceback = ""
            run_store.store_failure(spec, run_inputs, stopped, status="interrupted")
            raise
        except Exception as error:  # the executor lost the run: a dead worker, too many times
            products = RunProducts(started=time.time(), host="", finished=time.time())
            products.error, products.traceback = redaction.describe_error(error, request.parameters)
        try:
            return run_store.store(spec, run_inputs, products)
        except Exception as error:  # an invalid outcome, a full disk: this run's failure only
            return run_store.store_storing_error(spec, run_inputs, products, error, say)


@dataclass
class Summary:
    succeeded: list[RunSpec] = field(default_factory=list)
    skipped: list[RunSpec] = field(default_factory=list)
    failed: list[RunSpec] = field(default_factory=list)


def run_all(
    specs: list[RunSpec],
    force: bool = False,
    log_output: bool = True,
    executor: "executors.Executor | None" = None,
) -> Summary:
    """Execute every run, going on after a failure: one after another in this process, or as
    many at once as the executor takes (`--jobs N`, a Dask cluster)."""
    logging.getLogger("papermill").setLevel(logging.INFO if log_output else logging.WARNING)
    executor = executor or executors.LocalExecutor()
    summary = Summary()
    with executor:
        executor.check({spec.model for spec in specs})
        if executor.concurrency == 1:
            _run_in_turn(specs, force, log_output, executor, summary)
        else:
            _run_at_once(specs, force, executor, summary)
    return summary


def _run_in_turn(specs, force, log_output, executor, summary) -> None:
    bar = tqdm(specs, unit="run", desc="kluebook run")
    for spec in bar:
        bar.set_postfix_str(f"{spec.task.name} · {spec.model} · seed {spec.seed}")
        bar.write(f"▶ {spec.task.name}: {spec.name}")
        outcome = execute(spec, force, log_output, bar.write, executor.produce)
        getattr(summary, outcome).append(spec)
        bar.write(f"  {outcome}{_detail(spec, outcome)}")


def _run_at_once(specs, force, executor, summary) -> None:
    """Runs in threads that each wait for one run (its kernel, or its Dask future); their
    notebook output is not streamed, as it would interleave."""
    bar = tqdm(total=len(specs), unit="run", desc=f"kluebook run ({executor.description})")
    pool = ThreadPoolExecutor(max_workers=min(len(specs), executor.concurrency) or 1)
    futures = {
        pool.submit(execute, spec, force, False, bar.write, executor.produce): spec
        for spec in costliest_first(specs)
    }
    try:
        for future in as_completed(futures):
            spec = futures[future]
            outcome = future.result()
            getattr(summary, outcome).append(spec)
            bar.update()
            bar.write(f"{spec.task.name}: {spec.name} {outcome}{_detail(spec, outcome)}")
    except BaseException:
        # Interrupted here: runs not started are dropped, runs in progress are stopped (their
        # kernels killed, their Dask futures cancelled) and recorded as interrupted; the next
        # sweep executes only the runs without an up-to-date record.
        executor.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        bar.close()
    pool.shutdown()


def costliest_first(specs: list[RunSpec]) -> list[RunSpec]:
    """The order in which runs start when several run at once: the costliest first, so that no
    long run starts last and ends alone. A run's cost is the wall time of its last record
    (success or failure) where it has one, else its task's declared `smoke_cost_s`; ties keep
    the plan's order."""

    def cost(spec: RunSpec) -> float:
        for path in (spec.record_path, spec.failure_path):
            record = records.read_record(path)
            if record is not None and record.wall_time_s:
                return record.wall_time_s
        return spec.task.smoke_cost_s

    return sorted(specs, key=cost, reverse=True)


def _detail(spec: RunSpec, outcome: str) -> str:
    if outcome != "failed":
        return ""
    failure = records.read_record(spec.failure_path)
    error = failure.error if failure else "its record is unreadable"
    kept = records.read_record(spec.record_path)
    if kept is None:
        return f": {error}"
    return f": {error} (the result of {kept.finished_at[:10]} is kept)"
