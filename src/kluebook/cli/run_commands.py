"""`kluebook run` and `kluebook status`: execute the runs of a run matrix, or say where each
stands."""

import time
from pathlib import Path
from typing import Annotated

import typer

from kluebook.cli.choices import Execution, Selection, SlurmChoice, make_executor, run_options
from kluebook.cli.options import (
    DEFAULT_DATA_REVISION,
    DEFAULT_MODEL_REVISION,
    DEFAULT_PROFILE,
    BaseUrl,
    Concurrency,
    DataDir,
    DataRevision,
    DataSource,
    ExecutorName,
    Force,
    GpusPerJob,
    Jobs,
    Matrix,
    Method,
    ModelRevision,
    Models,
    Patience,
    Profile,
    Quiet,
    RequestTimeout,
    Resources,
    Retries,
    Scheduler,
    Seeds,
    Settings,
    SlurmMemory,
    SlurmPartition,
    SlurmWalltime,
    Tasks,
    Threads,
    served_by,
)
from kluebook.common.paths import ROOT
from kluebook.prompting.server_options import DEFAULT_OPTIONS, ServerOptions


def execute_runs(options: list, force: bool, quiet: bool, execution: Execution) -> bool:
    """Execute the runs each of `options` asks for (all checked and pinned first), together on
    the executor `execution` names; True when none failed."""
    from kluebook.running import runner  # lazy: CLI start-up
    from kluebook.running.run_plan import prepare  # lazy: CLI start-up

    # A command refused here has started and written nothing.
    specs = [spec for asked in options for spec in prepare(asked)]
    executor = make_executor(execution)
    if force or not all(spec.record_path.exists() for spec in specs):
        executor.start_kernels(len(specs))  # while the runs are fingerprinted
    try:
        summary = runner.run_all(specs, force=force, log_output=not quiet, executor=executor)
    except KeyboardInterrupt:
        typer.echo("interrupted: the runs in progress are recorded as interrupted", err=True)
        raise typer.Exit(130) from None
    typer.echo(
        f"{len(summary.succeeded)} succeeded, {len(summary.skipped)} skipped (up to date), "
        f"{len(summary.failed)} failed"
    )
    for spec in summary.failed:
        kept = spec.record_path.exists()
        beside = f", beside the kept result {_shown(spec.record_path)}" if kept else ""
        typer.echo(
            f"failed: {spec.task.name} {spec.name} (recorded in {_shown(spec.failure_path)}"
            f"{beside}; `kluebook status` lists it)",
            err=True,
        )
    return not summary.failed


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def _states(specs) -> list:
    from kluebook.running.run_store import run_state  # lazy: CLI start-up

    return [(spec, run_state(spec)) for spec in specs]


def run(
    profile: Profile = DEFAULT_PROFILE,
    tasks: Tasks = None,
    models: Models = None,
    seeds: Seeds = None,
    data_source: DataSource = None,
    data_dir: DataDir = None,
    model_revision: ModelRevision = DEFAULT_MODEL_REVISION,
    data_revision: DataRevision = DEFAULT_DATA_REVISION,
    settings: Settings = [],  # noqa: B006  (typer reads the default; it is never mutated)
    matrix: Matrix = None,
    method: Method = None,
    base_url: BaseUrl = None,
    request_timeout: RequestTimeout = DEFAULT_OPTIONS.timeout,
    retries: Retries = DEFAULT_OPTIONS.retries,
    concurrency: Concurrency = DEFAULT_OPTIONS.concurrency,
    force: Force = False,
    quiet: Quiet = False,
    executor: ExecutorName = "local",
    jobs: Jobs = 1,
    threads: Threads = None,
    scheduler: Scheduler = None,
    resources: Resources = None,
    slurm_partition: SlurmPartition = None,
    slurm_memory: SlurmMemory = "16GB",
    gpus_per_job: GpusPerJob = 1,
    slurm_walltime: SlurmWalltime = None,
    patience: Patience = None,
    dry_run: Annotated[
        bool,
        typer.Option(help="Say which runs would execute, and why, without executing any."),
    ] = False,
) -> None:
    """Execute the task notebooks for every (task, model, seed, parameter set) of a run matrix.

    Everything is written under the book root: KLUEBOOK_ROOT, else the checkout kluebook runs
    from, else the current directory. Each run writes its record, predictions and executed
    notebook to `results/<profile>/<task>/` (`kluebook report` renders its page into
    `book/runs/<task>/`), named after its model (a local folder: its name and a hash of its
    files), its overrides (if any) and its seed, so runs of different configurations never
    overwrite each other. Runs whose record matches (same notebook, parameters, data and the
    code the run executes) are skipped; a second runner on the same book root waits for a run
    in progress instead of repeating it. A failing run, or one that cannot be stored, is
    recorded as failed beside its last good result (which it never replaces), the others go
    on, and the command exits 1 at the end. --dry-run says which runs would execute and why.

    Runs execute one after another here by default; --jobs N runs N at once on this machine, and
    --executor dask --scheduler tcp://HOST:PORT sends every run to a Dask cluster whose workers
    have this repository and environment: each run's files come back here. A run uses one GPU.

    --method prompted runs the profile's prompted matrix instead: a causal language model
    answers each task's prompts, zero- and five-shot, with no training (`kluebook run --method
    prompted --tasks TASK`). It runs here with transformers or, with --base-url, on an
    OpenAI-compatible server (`--models` names the model as the server does); its records sit
    beside the fine-tuned ones, and `kluebook compare` pairs the two.

    On Slurm, from a login node of a checkout on the shared filesystem (the tested recipe, with
    the partition and sizes of your cluster):

    `kluebook run --profile paper --executor slurm --slurm-partition gpu --jobs 4 --threads 8
    --slurm-memory 32GB --gpus-per-job 1 --slurm-walltime 24:00:00`

    Each job is one Dask worker (dask-jobqueue's SLURMCluster, processes=1) that executes one run
    at a time on its GPU with the job's cores; the command waits while jobs are queued
    (--patience) and submits a job again when one dies, whose run executes on another. Options
    not given come from dask-jobqueue's config (`jobqueue.slurm`, e.g. account, interface).
    The test suite runs this recipe on a single-node Slurm it starts itself, sized for one CPU
    node: `--slurm-partition debug --jobs 2 --threads 1 --slurm-memory 3GB --gpus-per-job 0
    --slurm-walltime 00:30:00`.
    """
    selection = Selection.among(locals())
    asked = ServerOptions(
        timeout=request_timeout, retries=retries, concurrency=concurrency, reask=force
    )
    options = run_options(
        selection,
        model_revision=model_revision,
        data_revision=data_revision,
        method=method,
        server=served_by(base_url, asked),
    )
    slurm = SlurmChoice(
        partition=slurm_partition,
        memory=slurm_memory,
        gpus_per_job=gpus_per_job,
        walltime=slurm_walltime,
    )
    execution = Execution(
        executor=executor,
        jobs=jobs,
        threads=threads,
        scheduler=scheduler,
        resources=resources,
        slurm=slurm,
        patience=patience,
    )
    if dry_run:
        from kluebook.running.run_plan import pin_revisions, planned  # lazy: CLI start-up

        states = _states(pin_revisions(planned(options)))
        chosen = [(s, st) for s, st in states if force or st.state != "current"]
        for spec, state in states:
            verb = "would execute" if force or state.state != "current" else "would skip"
            typer.echo(f"{verb}: {spec.task.name} {spec.name}: {state}")
        typer.echo(f"would execute {len(chosen)} of {len(states)} runs (dry run: none executed)")
        return
    if not execute_runs([options], force, quiet, execution):
        raise typer.Exit(1)


def status(
    profile: Profile = DEFAULT_PROFILE,
    tasks: Tasks = None,
    models: Models = None,
    seeds: Seeds = None,
    data_source: DataSource = None,
    data_dir: DataDir = None,
    settings: Settings = [],  # noqa: B006
    matrix: Matrix = None,
    method: Method = None,
    base_url: BaseUrl = None,
) -> None:
    """List every run of a run matrix (the options of `kluebook run`) as current, stale (and
    which input changed since: notebook, parameters, data, task code, shared code, task
    version), failed, interrupted, missing or unreadable. Executes nothing.

    First, the runs executing now on this book root (by any runner here, or a Dask worker or
    Slurm job sharing it): task, run, host, minutes so far and the last line of its log, which
    streams to `.cache/logs/<task>/<run>.log`."""
    selection = Selection.among(locals())
    # Bad options: one line.
    chosen = run_options(selection, method=method, server=served_by(base_url))
    from kluebook.running.in_progress import runs_in_progress  # lazy: CLI start-up

    running = runs_in_progress()
    typer.echo(f"{len(running)} run(s) in progress")
    for run in running:
        minutes = (time.time() - run["started"]) / 60
        typer.echo(
            f"in progress: {run['task']} {run['name']}, {run['host']}, {minutes:.1f} min, "
            f"log {run['log']}: {run['last_line'] or '(nothing yet)'}"
        )
    from kluebook.running.run_plan import ask_servers, planned  # lazy: CLI start-up

    states = _states(ask_servers(planned(chosen)))  # another model under a run's name stales it
    counts: dict[str, int] = {}
    for spec, state in states:
        typer.echo(f"{spec.task.name} {spec.name}: {state}")
        counts[state.state] = counts.get(state.state, 0) + 1
    order = ("current", "stale", "failed", "interrupted", "missing", "unreadable", "unchecked")
    typer.echo(", ".join(f"{counts.get(name, 0)} {name}" for name in order))
