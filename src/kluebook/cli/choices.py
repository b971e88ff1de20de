"""What a command's options choose, handed down as typed objects: the runs (`Selection`, turned
into the plan's options by `run_options`) and where they execute (`Execution`, whose executor
`make_executor` makes)."""

from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import yaml

from kluebook.cli.options import parse_seeds, parse_settings, split_names
from kluebook.common.errors import KluebookError
from kluebook.common.paths import CONFIGS
from kluebook.methods.registry import method_named


@dataclass(frozen=True)
class SlurmChoice:
    """The Slurm jobs of --executor slurm (`--slurm-*`, `--gpus-per-job`)."""

    partition: str | None = None  # Slurm's default partition
    memory: str = "16GB"
    gpus_per_job: int = 1
    walltime: str | None = None


@dataclass(frozen=True)
class Execution:
    """Where the runs execute and how many at once (`--executor` and its options)."""

    executor: str = "local"
    jobs: int = 1
    threads: int | None = None
    scheduler: str | None = None  # a Dask scheduler's address
    resources: str | None = None  # the Dask worker resources each run asks for
    slurm: SlurmChoice = field(default_factory=SlurmChoice)
    patience: float | None = None  # the executor's default


def make_executor(execution: Execution):
    """The executor `execution` names; Dask is imported only when it is chosen."""
    from kluebook.running import cluster_executors, executors

    chosen, slurm = execution, execution.slurm
    patience = {} if chosen.patience is None else {"patience": chosen.patience}
    if chosen.executor == "slurm":
        if chosen.scheduler or chosen.resources is not None:
            raise KluebookError("--scheduler and --resources go with --executor dask")
        return cluster_executors.SlurmExecutor(
            jobs=chosen.jobs,
            cores=chosen.threads or 4,
            memory=slurm.memory,
            gpus=slurm.gpus_per_job,
            partition=slurm.partition,
            walltime=slurm.walltime,
            **patience,
        )
    if chosen.executor == "local":
        if chosen.scheduler:
            raise KluebookError("--scheduler goes with --executor dask")
        return executors.LocalExecutor(jobs=chosen.jobs, threads=chosen.threads)
    if chosen.executor == "dask":
        if not chosen.scheduler:
            raise KluebookError("--executor dask needs --scheduler tcp://HOST:PORT")
        if chosen.jobs != 1 or chosen.threads is not None:
            raise KluebookError(
                "--jobs and --threads are for --executor local; Dask workers "
                "run as many runs as they have threads"
            )
        asked = (
            None
            if chosen.resources is None
            else cluster_executors.parse_resources(chosen.resources)
        )
        return cluster_executors.DaskExecutor(chosen.scheduler, asked, **patience)
    raise KluebookError(f"unknown executor {chosen.executor!r}; choose local, dask or slurm")


def matrix_path(matrix: Path | None) -> Path | None:
    """A sweep file as given, or the package's sweep of that name (`learning-rate`)."""
    if matrix is None or matrix.exists():
        return matrix
    shipped = CONFIGS / "sweeps" / matrix.with_suffix(".yaml").name
    return shipped if len(matrix.parts) == 1 and shipped.is_file() else matrix


def method_matrix(method: str | None, profile: str, matrix: Path | None) -> Path | None:
    """The run matrix `--method` chooses (`Method.matrix`: the profile's own for fine-tuned
    runs (None), its prompted sweep for prompted ones); `--matrix` as it is when no method is
    given."""
    if method is None:
        return matrix
    chosen = method_named(method)
    if matrix is not None:
        raise KluebookError("give --method or --matrix, not both: a matrix names its own method")
    return chosen.matrix(profile, CONFIGS)


@dataclass(frozen=True)
class Selection:
    """The runs a command names, as its options give them (`run`, `status` and `book` share
    these): the matrix, and what narrows or overrides it."""

    profile: str = "smoke"
    tasks: str | None = None  # comma-separated, as typed
    models: str | None = None
    seeds: str | None = None
    data_source: str | None = None
    data_dir: str | None = None
    settings: tuple[str, ...] = ()  # name=value, each --set
    matrix: Path | None = None

    @classmethod
    def among(cls, options: dict) -> "Selection":
        """The selection among a command's options, given by name (its `locals()`)."""
        chosen = {f.name: options[f.name] for f in fields(cls)}
        return cls(**{**chosen, "settings": tuple(chosen["settings"])})


# What `kluebook book` runs beside a profile's matrix: configs/book.yaml.
BOOK_SWEEPS = CONFIGS / "book.yaml"


def book_sweeps(profile: str) -> list[tuple[str, list[str] | None]]:
    """The shipped sweeps the book of `profile` runs, each with the tasks it is cut to (None:
    every task), from `BOOK_SWEEPS`."""
    entries = yaml.safe_load(BOOK_SWEEPS.read_text(encoding="utf-8")) or {}
    return [(entry["sweep"], entry.get("tasks")) for entry in entries.get(profile, [])]


def book_selections(selection: Selection) -> list[Selection]:
    """The runs `kluebook book` executes: the selection's, and where it is its profile's own
    matrix (no --matrix, --models, --seeds, --data-source, --data-dir or --set), the profile's
    book sweeps (`book_sweeps`), cut to the --tasks given."""
    chosen = [selection]
    own = Selection(profile=selection.profile, tasks=selection.tasks)
    if selection != own:
        return chosen
    asked = split_names(selection.tasks)
    for sweep, tasks in book_sweeps(selection.profile):
        names = asked if tasks is None else [t for t in tasks if not asked or t in asked]
        if names == []:  # a sweep of other tasks than those asked for
            continue
        chosen.append(replace(own, tasks=",".join(names) if names else None, matrix=Path(sweep)))
    return chosen


def run_options(
    selection: Selection,
    *,
    model_revision: str = "",
    data_revision: str = "",
    method: str | None = None,
    server=None,
):
    """The command's run options as one `run_plan.Options`, parsed before the slow import;
    `server`: the server that answers the runs (`ServedBy`, from --base-url: `served_by`)."""
    seed_list, extra = parse_seeds(selection.seeds), parse_settings(list(selection.settings))
    profile = selection.profile
    matrix = method_matrix(method, profile, matrix_path(selection.matrix))
    from kluebook.running.run_plan import Options  # lazy: CLI start-up (the plan imports papermill)

    return Options(
        profile,
        tasks=split_names(selection.tasks),
        models=split_names(selection.models),
        seeds=seed_list,
        data_source=selection.data_source,
        data_dir=selection.data_dir,
        extra=extra,
        matrix_path=matrix,
        model_revision=model_revision,
        data_revision=data_revision,
        server=server,
    )
