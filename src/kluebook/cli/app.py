"""The `kluebook` command line: run notebooks, report, build the book, score predictions."""

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from kluebook import __version__
from kluebook.cli.options import (
    TASK_NAMES,
    BaseUrl,
    Concurrency,
    DataDir,
    DataRevision,
    DataSource,
    Execution,
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
    ScoringSwitches,
    Seeds,
    Selection,
    Settings,
    SlurmChoice,
    SlurmMemory,
    SlurmPartition,
    SlurmWalltime,
    Tasks,
    Threads,
    make_executor,
    parse_settings,
    registered_tasks,
    run_options,
    split_names,
)
from kluebook.common.errors import KluebookError
from kluebook.common.paths import ROOT
from kluebook.prompting.server_lm import ServerOptions
from kluebook.tasks import all_tasks

PREDICTION_LINES = "\n\n".join(
    f"{name}: `{task.predictions['line']}`" for name, task in registered_tasks().items()
)

app = typer.Typer(
    help="kluebook: the KLUE reports book. Run the notebooks, build the book, score predictions.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # docstring paragraphs reflow to the terminal width
)
data_app = typer.Typer(help="Get the official KLUE v1.1 files.", no_args_is_help=True)
app.add_typer(data_app, name="data")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kluebook {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    pass


def _run(options, force: bool, quiet: bool, execution: Execution) -> bool:
    """Execute the runs `options` ask for (checked and pinned first), on the executor
    `execution` names; True when none failed."""
    from kluebook.running import runner  # lazy: CLI start-up
    from kluebook.running.run_plan import prepare  # lazy: CLI start-up

    specs = prepare(options)  # a command refused here has started and written nothing
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


@app.command()
def run(
    profile: Profile = "smoke",
    tasks: Tasks = None,
    models: Models = None,
    seeds: Seeds = None,
    data_source: DataSource = None,
    data_dir: DataDir = None,
    model_revision: ModelRevision = "",
    data_revision: DataRevision = "",
    settings: Settings = [],  # noqa: B006  (typer reads the default; it is never mutated)
    matrix: Matrix = None,
    method: Method = None,
    base_url: BaseUrl = None,
    request_timeout: RequestTimeout = ServerOptions.timeout,
    retries: Retries = ServerOptions.retries,
    concurrency: Concurrency = ServerOptions.concurrency,
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
    server = ServerOptions(
        timeout=request_timeout, retries=retries, concurrency=concurrency, reask=force
    )
    options = run_options(
        selection,
        model_revision=model_revision,
        data_revision=data_revision,
        method=method,
        base_url=base_url,
        server=server,
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
    if not _run(options, force, quiet, execution):
        raise typer.Exit(1)


@app.command()
def status(
    profile: Profile = "smoke",
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
    chosen = run_options(selection, method=method, base_url=base_url)  # bad options: one line
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


@app.command()
def report() -> None:
    """Write the book's generated pages: from the run records, the KLUE table, a figure per task,
    results.csv, results.json and model-index snippets, and the status page; from the task
    registry and the records, the task table, prediction formats, methods pages, a landing page
    per task, and the table of contents that puts each task's runs under its page."""
    from kluebook.book.report import write_generated  # lazy: CLI start-up

    for path in write_generated():
        typer.echo(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


@app.command()
def book(
    profile: Profile = "smoke",
    tasks: Tasks = None,
    models: Models = None,
    seeds: Seeds = None,
    data_source: DataSource = None,
    data_dir: DataDir = None,
    settings: Settings = [],  # noqa: B006
    matrix: Matrix = None,
    force: Force = False,
    quiet: Quiet = False,
    executor: ExecutorName = "local",
    jobs: Jobs = 1,
    threads: Threads = None,
    scheduler: Scheduler = None,
    resources: Resources = None,
    no_run: Annotated[
        bool,
        typer.Option(
            help="Execute nothing: build the site from the records and executed notebooks that "
            "are there (committed paper runs, for instance)."
        ),
    ] = False,
    path_output: Annotated[Path, typer.Option(help="Where _build/html goes.")] = ROOT,
) -> None:
    """Run the notebooks, write the results table, and build the site (warnings are errors).

    The site lands in `<path-output>/_build/html`. Notebooks are executed by the runner only;
    the build renders them as they are. Failed runs are reported, the book is built from the
    rest, and the command exits 1.
    """
    from kluebook.book.build import (  # lazy: CLI start-up
        build,
        check_book_root,
        write_generated_pages,
    )

    check_book_root()  # before any run: a checkout, its repository address set everywhere
    selection = Selection.among(locals())
    execution = Execution(
        executor=executor, jobs=jobs, threads=threads, scheduler=scheduler, resources=resources
    )
    started = time.perf_counter()
    ok = no_run or _run(run_options(selection), force, quiet, execution)
    ran = time.perf_counter()
    write_generated_pages(force=force)
    written = time.perf_counter()
    built = build(path_output, force=force)
    state = "" if built else " (up to date: no page changed since the last build)"
    typer.echo(f"book: {path_output / '_build' / 'html' / 'index.html'}{state}")
    typer.echo(
        f"timings: runs {ran - started:.1f} s, pages {written - ran:.1f} s, "
        f"site {time.perf_counter() - written:.1f} s"
    )
    if not ok:
        raise typer.Exit(1)


SCORE_HELP = (
    "Print the official KLUE metrics of a predictions file as JSON (0-100 scale).\n\n"
    "Every gold example needs exactly one prediction, keyed by its guid; a missing, duplicate "
    "or unknown guid is an error. An undefined metric (e.g. Pearson r of constant predictions) "
    "is printed as null with the reason on stderr. Each task's methods page in the book "
    "explains its format.\n\n"
    f"One line of the predictions file, per task:\n\n{PREDICTION_LINES}"
)


@app.command(help=SCORE_HELP)
def score(
    task: Annotated[str, typer.Argument(help=f"One of {TASK_NAMES}.")],
    pred: Annotated[
        Path, typer.Option(help="Predictions: JSON Lines, one object per gold example.")
    ],
    gold: Annotated[
        Path | None,
        typer.Option(help="Official KLUE v1.1 dev file; omit for the hub validation split."),
    ] = None,
    settings: ScoringSwitches = None,
) -> None:
    """Score a predictions file (the help text is SCORE_HELP, built from the task registry)."""
    from kluebook.scoring.predictions import score_file, undefined_metrics  # lazy: CLI start-up
    from kluebook.tasks import get_task  # lazy: CLI start-up
    from kluebook.training.recipes import scoring_switches  # lazy: CLI start-up

    chosen = get_task(task)
    switches = scoring_switches(chosen, parse_settings(settings or []))
    metrics = score_file(chosen, pred, gold, switches)
    for key in undefined_metrics(metrics):
        typer.echo(
            f"{key} is undefined on these predictions (e.g. constant scores, or a class with "
            "no gold example): printed as null",
            err=True,
        )
        metrics[key] = None
    typer.echo(json.dumps(metrics, ensure_ascii=False))


@app.command("compare")
def compare_command(
    a: Annotated[
        str, typer.Argument(help="A: a predictions file, a model id or a configuration label.")
    ],
    b: Annotated[str, typer.Argument(help="B: the same kind as A.")],
    task: Annotated[str, typer.Option(help=f"One of {TASK_NAMES}.")],
    gold: Annotated[
        Path | None,
        typer.Option(help="With predictions files: the official dev file; omit for the hub split."),
    ] = None,
    settings: ScoringSwitches = None,
) -> None:
    """Is A better than B on the task's dev set? A paired bootstrap per official metric.

    A and B are two predictions files (scored against `--gold` as `kluebook score` does, with
    its `--set` switches), or two configurations of the records under results/: a model id, or a
    configuration label of a sweep (`learning_rate=0.001`), each with all its seeds and scored
    with the switches its records hold. Both are resampled over the same
    dev-set units (and their seeds); each metric prints A, B, A - B, its 95% interval, a p-value
    and the verdict "A is better", "B is better" or "not distinguishable with this dev set".
    """
    from kluebook.recording.records import read_records  # lazy: CLI start-up
    from kluebook.results import compare  # lazy: CLI start-up
    from kluebook.tasks import get_task  # lazy: CLI start-up
    from kluebook.training.recipes import scoring_switches  # lazy: CLI start-up

    chosen = get_task(task)
    switches = scoring_switches(chosen, parse_settings(settings or []))
    files = [compare.is_predictions_file(name) for name in (a, b)]
    if all(files):
        for name in (a, b):
            if not Path(name).is_file():
                raise KluebookError(f"no predictions file {name}")
        gold_records = compare.load_gold(chosen, gold)
        sides = compare.from_files(chosen, gold_records, Path(a), Path(b), switches)
    elif any(files):
        raise KluebookError("give two predictions files or two configurations, not one of each")
    elif switches:
        raise KluebookError("--set is for two predictions files: a record keeps its own switches")
    else:
        gold_records, sides = compare.from_records(chosen, read_records()[0], a, b)
    results = compare.compare(chosen, *sides)
    typer.echo(compare.table(chosen, gold_records, *sides, results))


@app.command("tasks")
def list_tasks() -> None:
    """List the tasks, their official metrics and whether their notebook exists."""

    for task in all_tasks().values():
        state = "ready" if task.notebook_path.exists() else "no notebook yet"
        metrics = ", ".join(m.key for m in task.metrics)
        typer.echo(f"{task.name:5} {task.title:40} {metrics:32} {state}")


@app.command("set-repository")
def set_repository(
    url: Annotated[
        str, typer.Argument(help="The repository's address, e.g. https://github.com/me/kluebook.")
    ],
) -> None:
    """Point the book at the repository that hosts it: set `repository.url` in _config.yml and
    write the address into the notebooks' Colab install cell and the READMEs' install lines.

    The site's links, launch buttons and cite entry follow `repository.url`; the notebooks and
    READMEs cannot read it (Colab installs kluebook before there is a checkout), so this writes it
    into them, and `kluebook book` refuses to build while one of them disagrees.
    """
    from kluebook.book.build import require_book_root  # lazy: CLI start-up
    from kluebook.common.repository import set_url  # lazy: CLI start-up

    require_book_root()
    changed = set_url(ROOT, url)
    for path in changed:
        typer.echo(f"wrote {path.relative_to(ROOT)}")
    typer.echo(f"repository: {url.rstrip('/')} ({len(changed)} files changed)")


@data_app.command("fetch")
def data_fetch(
    tasks: Tasks = None,
    dest: Annotated[
        Path, typer.Option(help="Target folder (layout of KLUE's klue_benchmark/).")
    ] = Path("data/klue_benchmark"),
    base_url: Annotated[
        str | None,
        typer.Option(
            help="Mirror to download from (default: the KLUE repository at commit 3efd987)."
        ),
    ] = None,
) -> None:
    """Download the official KLUE v1.1 train/dev files, each checked against its git blob id at
    the pinned KLUE commit (and its SHA-256 where known) before it is used."""
    from kluebook.data.fetch import fetch  # lazy: CLI start-up
    from kluebook.tasks import get_task  # lazy: CLI start-up

    chosen = [get_task(t) for t in split_names(tasks)] if tasks else list(all_tasks().values())
    for path in fetch(chosen, dest, base_url):
        typer.echo(f"ok {path}")


def main() -> None:
    """Entry point: user errors become one line on stderr and exit status 2."""
    try:
        app()
    except KluebookError as error:
        typer.echo(f"error: {error}", err=True)
        sys.exit(2)
