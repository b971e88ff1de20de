"""The options of the `kluebook` commands as declared (their types and help texts), and the
parsers of their values (task names, seeds, `--set` pairs, a server's address)."""

import json
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from kluebook.common.errors import KluebookError
from kluebook.common.paths import CONFIGS
from kluebook.methods.interface import RunSettings, ServedBy
from kluebook.prompting.server_options import API_KEY_VARIABLES, DEFAULT_OPTIONS, ServerOptions
from kluebook.tasks import all_tasks


def registered_tasks() -> dict:
    """The tasks the help texts list; where a task folder is malformed, none: the command that
    reads the registry then reports the problem in one line (`kluebook.cli.app.main`)."""
    try:
        return all_tasks()
    except KluebookError:
        return {}


TASK_NAMES = ", ".join(registered_tasks())


def split_names(value: str | None) -> list[str] | None:
    return [item.strip() for item in value.split(",") if item.strip()] if value else None


def parse_seeds(value: str | None) -> list[int] | None:
    """`1,2,3` as integers; a bad item is a one-line error naming it."""
    seeds = []
    for item in split_names(value) or []:
        try:
            seeds.append(int(item))
        except ValueError:
            raise KluebookError(f"--seeds expects comma-separated integers, got {item!r}") from None
    return seeds or None


def parse_settings(settings: list[str]) -> dict:
    """`name=value` pairs; values are read as JSON when they parse (numbers, null), else text."""
    parsed = {}
    for setting in settings:
        name, sep, raw = setting.partition("=")
        if not sep or not name:
            raise KluebookError(f"--set expects name=value, got {setting!r}")
        try:
            parsed[name] = json.loads(raw)
        except json.JSONDecodeError:
            parsed[name] = raw
    return parsed


def check_base_url(url: str) -> None:
    """An http or https URL with a host and no credentials, query or fragment, else a one-line
    error that shows no part of the URL a credential may be in."""
    example = "e.g. http://127.0.0.1:8000/v1"
    try:
        parts = urlsplit(url)
        if "@" in parts.netloc:
            raise KluebookError(
                "--base-url holds credentials (user:password@): give the URL without them and "
                f"the server's key in {' or '.join(API_KEY_VARIABLES)}"
            )
        if parts.scheme not in ("http", "https"):
            raise KluebookError(f"--base-url must be an http:// or https:// URL, {example}")
        if not parts.hostname:
            raise KluebookError(f"--base-url names no host, {example}")
        if parts.query or parts.fragment:  # the client adds its paths after the base URL
            raise KluebookError(
                "--base-url has a query or fragment (?… or #…): give the server's address "
                f"alone and its key in {' or '.join(API_KEY_VARIABLES)}"
            )
        parts.port  # noqa: B018  (a port that is no number raises here)
    except ValueError as error:
        raise KluebookError(f"--base-url is not a URL ({error}), {example}") from None


def served_by(base_url: str | None, options: ServerOptions = DEFAULT_OPTIONS) -> ServedBy | None:
    """The server at --base-url (checked: `check_base_url`), asked as `options` say; None
    without one (the model runs here)."""
    if not base_url:
        return None
    check_base_url(base_url)
    return ServedBy(base_url=base_url, options=options)


def run_help(name: str) -> str:
    """A run option's help: its `RunSettings` field's description."""
    return RunSettings.model_fields[name].description


# The run options' defaults: their `RunSettings` fields'.
DEFAULT_PROFILE: str = RunSettings.model_fields["profile"].default
DEFAULT_MODEL_REVISION: str = RunSettings.model_fields["model_revision"].default
DEFAULT_DATA_REVISION: str = RunSettings.model_fields["data_revision"].default


Profile = Annotated[str, typer.Option(help=run_help("profile"))]
Tasks = Annotated[
    str | None,
    typer.Option(
        help=f"Comma-separated tasks among {TASK_NAMES} (default: every task with a notebook)."
    ),
]
Models = Annotated[
    str | None,
    typer.Option(
        help=f"Comma-separated models (default: the profile's run matrix). {run_help('model')}"
    ),
]
Seeds = Annotated[
    str | None,
    typer.Option(
        help=f"Comma-separated seeds, e.g. 1,2,3 (default: the run matrix's). {run_help('seed')}"
    ),
]
DataSource = Annotated[
    str | None,
    typer.Option(help=f"{run_help('data_source')[:-1]} (default: the run matrix's)."),
]
ModelRevision = Annotated[str, typer.Option(help=run_help("model_revision"))]
DataRevision = Annotated[str, typer.Option(help=run_help("data_revision"))]
DataDir = Annotated[str | None, typer.Option(help=run_help("data_dir"))]
Settings = Annotated[
    list[str],
    typer.Option("--set", help=f"{run_help('extra')} Repeatable."),
]
ScoringSwitches = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="One of the task's own switches, name=value, as the run's recipe set it (the "
        "paper profile's values are the first choices on the book's deviations page): the "
        "metrics then equal those the run recorded. A switch changes the scoring only where "
        "it is given; repeatable.",
    ),
]
Matrix = Annotated[
    Path | None,
    typer.Option(
        help="A sweep file with the schema of the package's configs/smoke.yaml: profile, "
        "data_source, models, seeds and parameters, where a list of values is a grid axis, e.g. "
        "`learning_rate: [1.0e-5, 3.0e-5]`; or the name of a sweep shipped with the package "
        f"({', '.join(p.stem for p in sorted((CONFIGS / 'sweeps').glob('*.yaml')))}). "
        "Replaces --profile's matrix.",
    ),
]
Method = Annotated[
    str | None,
    typer.Option(
        help="fine-tuned: the profile's run matrix (configs/<profile>.yaml); prompted: the "
        "profile's prompted matrix (sweeps/prompted-<profile>.yaml), where a causal LM answers "
        "prompts, zero- and few-shot. Narrowed by --tasks, --models, --seeds and --set as the "
        "profile's own matrix is. Default: the profile's, or what --matrix says.",
    ),
]
BaseUrl = Annotated[
    str | None,
    typer.Option(
        help=f"Prompted runs: {ServedBy.model_fields['base_url'].description} Default: the "
        "model runs locally, with transformers."
    ),
]


def server_help(name: str) -> str:
    """A server option's help: its `ServerOptions` field's description."""
    return f"With --base-url: {ServerOptions.model_fields[name].description}"


RequestTimeout = Annotated[float, typer.Option(help=server_help("timeout"), min=0.001)]
Retries = Annotated[int, typer.Option(help=server_help("retries"), min=0)]
Concurrency = Annotated[int, typer.Option(help=server_help("concurrency"), min=1)]
Force = Annotated[
    bool,
    typer.Option(
        help="Execute every run again, even those up to date; a prompted run on a server asks "
        "the server afresh for every answer (the response cache is rewritten, never read). "
        "Without --force, a run that is missing, stale or was interrupted takes the answers "
        "already in the cache and asks only for the rest: that is how a sweep resumes.",
    ),
]
ExecutorName = Annotated[
    str,
    typer.Option(
        "--executor",
        help="local: on this machine (--jobs at once); dask: send every run to the Dask "
        "scheduler given by --scheduler; slurm: run every run in Slurm jobs through "
        "dask-jobqueue (dask and slurm need the `dask` extra).",
    ),
]
Jobs = Annotated[
    int,
    typer.Option(
        help="Runs at once: on this machine (local executor; each with --threads CPU threads "
        "and, on a machine with GPUs, its own GPU), or Slurm jobs at once "
        "(--executor slurm; one run at a time per job)."
    ),
]
Threads = Annotated[
    int | None,
    typer.Option(
        help="CPU threads per run (OMP_NUM_THREADS in its kernel); default 1 (or your "
        "OMP_NUM_THREADS), at every --jobs level: CPU float sums depend on the thread count, so "
        "records are bit-for-bit the same only at the same --threads. With --executor slurm: "
        "the cores of each job (default 4)."
    ),
]
SlurmPartition = Annotated[
    str | None,
    typer.Option(help="--executor slurm: the partition the jobs go to (default: Slurm's)."),
]
SlurmMemory = Annotated[str, typer.Option(help="--executor slurm: memory per job, e.g. 16GB.")]
GpusPerJob = Annotated[
    int,
    typer.Option(
        help="--executor slurm: 1 asks each job for a GPU (--gres=gpu:1) for the runs of real "
        "checkpoints; 0 for none (CPU, or the tiny stand-ins)."
    ),
]
SlurmWalltime = Annotated[
    str | None,
    typer.Option(help="--executor slurm: each job's time limit, e.g. 24:00:00."),
]
Patience = Annotated[
    float | None,
    typer.Option(
        help="Seconds to wait, before any run starts, for a Dask worker or a queued Slurm job "
        "that can take the runs (saying what it waits for every 30 s); then a one-line error "
        "and no run is recorded. Default: 120 (dask), 3600 (slurm)."
    ),
]
Scheduler = Annotated[
    str | None, typer.Option(help="Dask scheduler address for --executor dask, tcp://HOST:PORT.")
]
Resources = Annotated[
    str | None,
    typer.Option(
        help="Dask worker resources each run asks for, e.g. GPU=1 (default: GPU=1 for real "
        "checkpoints, none for the tiny stand-ins); '' for none."
    ),
]
Quiet = Annotated[bool, typer.Option(help="Do not stream notebook output (training progress).")]
