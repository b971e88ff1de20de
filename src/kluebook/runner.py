"""Executing the task notebooks with papermill over a run matrix (tasks x models x seeds).

Each run writes its executed notebook to book/runs/<task>/ and its record to results/. A run
whose record already holds the same fingerprint is skipped; a run that raises is recorded as
failed and the others go on.
"""

import itertools
import logging
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import nbformat
import papermill
import yaml
from filelock import FileLock, Timeout
from tqdm.auto import tqdm

from kluebook import records
from kluebook.checkpoints import check_hub_model
from kluebook.data import data_checksum, data_dir_for
from kluebook.errors import KluebookError
from kluebook.json_files import read_json
from kluebook.paths import CACHE, CONFIGS, RESULTS, ROOT, RUNS
from kluebook.recipes import PROFILES
from kluebook.tasks import Task, available_tasks, get_task
from kluebook.tiny_model import TINY_MODEL

# Parameters the runner sets itself; the rest may come from a matrix or from --set.
RUNNER_PARAMETERS = {
    "model",
    "profile",
    "data_source",
    "data_dir",
    "seed",
    "output_dir",
}


@dataclass(frozen=True)
class RunSpec:
    """One cell of the run matrix.

    A run is identified by task, profile, model, seed and everything else that can change its
    numbers: its parameter overrides and, where they differ from the profile's, its data source
    and data. Those are spelled out in `config`, which is part of its file names, so runs of
    different configurations never overwrite each other.
    """

    task: Task
    model: str
    seed: int
    profile: str
    data_source: str
    data_dir: str = ""
    extra: dict = field(default_factory=dict)
    default_data: tuple[str, str] = ("", "")

    @cached_property
    def config(self) -> str:
        """The configuration beyond model and seed, readable; "" for the profile's default."""
        parts = [f"{key}={value}" for key, value in sorted(self.extra.items())]
        if (self.data_source, self.data_dir) != self.default_data:
            parts.append(self.data_source)
            if self.data_source != "hub":
                checksum = data_checksum(self.task, self.data_source, self.data_dir or None)
                parts.append(f"data-{checksum[:8]}")
        return ",".join(parts).replace("/", "_").replace(" ", "_")

    @property
    def stem(self) -> str:
        config = f"-{self.config}" if self.config else ""
        return f"{records.model_slug(self.model)}{config}-seed{self.seed}"

    @property
    def name(self) -> str:
        return f"{self.profile}-{self.stem}"

    @property
    def record_path(self) -> Path:
        return RESULTS / self.profile / self.task.name / f"{self.stem}.json"

    @property
    def notebook_path(self) -> Path:
        return RUNS / self.task.name / f"{self.name}.ipynb"

    @property
    def output_dir(self) -> Path:
        return CACHE / "outputs" / self.task.name / self.name

    @property
    def lock_path(self) -> Path:
        return CACHE / "locks" / self.task.name / f"{self.name}.lock"

    def parameters(self) -> dict:
        """The notebook parameters; paths inside the book root are relative to it."""
        return {
            "model": self.model,
            "profile": self.profile,
            "data_source": self.data_source,
            "data_dir": self.data_dir,
            "seed": self.seed,
            "output_dir": _relative(self.output_dir),
            **self.extra,
        }


MATRIX_KEYS = {"profile", "data_source", "data_dir", "models", "seeds", "parameters"}


def load_matrix(profile: str | None = None, path: str | Path | None = None) -> dict:
    """A run matrix: the file at `path` (a sweep), or configs/<profile>.yaml; validated."""
    if path is None:
        if profile not in PROFILES:
            raise KluebookError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
        path = CONFIGS / f"{profile}.yaml"
    try:
        with open(path, encoding="utf-8") as handle:
            matrix = yaml.safe_load(handle)
    except OSError as error:
        raise KluebookError(f"cannot read the run matrix {path}: {error.strerror}") from error
    except yaml.YAMLError as error:
        raise KluebookError(f"{path}: not valid YAML ({str(error).splitlines()[0]})") from error
    validate_matrix(matrix, path)
    return matrix


def validate_matrix(matrix, path) -> None:
    """One-line errors for a run matrix that does not have the schema of configs/smoke.yaml."""
    if not isinstance(matrix, dict):
        raise KluebookError(
            f"{path}: a run matrix is a mapping of {', '.join(sorted(MATRIX_KEYS))}"
        )
    unknown = sorted(set(matrix) - MATRIX_KEYS)
    if unknown:
        raise KluebookError(
            f"{path}: unknown key {unknown[0]!r}; known: {', '.join(sorted(MATRIX_KEYS))}"
        )
    if matrix.get("profile") not in PROFILES:
        raise KluebookError(f"{path}: profile must be one of {', '.join(PROFILES)}")
    models, seeds = matrix.get("models"), matrix.get("seeds")
    if not isinstance(models, list) or not models or not all(isinstance(m, str) for m in models):
        raise KluebookError(f"{path}: models must be a non-empty list of model ids or paths")
    if not isinstance(seeds, list) or not seeds or not all(type(s) is int for s in seeds):
        raise KluebookError(f"{path}: seeds must be a non-empty list of integers")
    parameters = matrix.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise KluebookError(f"{path}: parameters must map names to a value or a list of values")
    for name, values in parameters.items():
        if isinstance(values, list) and not values:
            raise KluebookError(f"{path}: parameter {name!r} has an empty list of values")
        if isinstance(values, dict):
            raise KluebookError(f"{path}: parameter {name!r} must be a value or a list of values")


def parameter_grid(parameters: dict) -> list[dict]:
    """Every combination of the parameters: a list value is a grid axis, a scalar is fixed."""
    axes = {k: v if isinstance(v, list) else [v] for k, v in parameters.items()}
    return [dict(zip(axes, values, strict=True)) for values in itertools.product(*axes.values())]


def plan(
    profile: str | None = "smoke",
    tasks: list[str] | None = None,
    models: list[str] | None = None,
    seeds: list[int] | None = None,
    data_source: str | None = None,
    data_dir: str | None = None,
    extra: dict | None = None,
    matrix_path: str | Path | None = None,
) -> list[RunSpec]:
    """The runs to execute: a run matrix (the profile's, or a sweep file's), narrowed or
    replaced by the arguments; `extra` overrides the matrix's parameters."""
    matrix = load_matrix(profile, matrix_path)
    profile = matrix["profile"]
    defaults = load_matrix(profile) if matrix_path else matrix
    default_data = (defaults["data_source"], str(defaults.get("data_dir") or ""))
    grid = parameter_grid({**(matrix.get("parameters") or {}), **(extra or {})})
    specs = []
    for name in tasks or available_tasks():
        task = get_task(name)
        if not task.notebook_path.exists():
            raise KluebookError(f"task {name!r} has no notebook yet ({task.notebook_path.name})")
        for overrides in grid:
            check_parameters(task, overrides)
            for model in models or matrix["models"]:
                for seed in seeds or matrix["seeds"]:
                    specs.append(
                        RunSpec(
                            task=task,
                            model=model,
                            seed=int(seed),
                            profile=profile,
                            data_source=data_source or matrix.get("data_source") or default_data[0],
                            data_dir=str(data_dir or matrix.get("data_dir") or ""),
                            extra=overrides,
                            default_data=default_data,
                        )
                    )
    return specs


def check_parameters(task: Task, extra: dict) -> None:
    """Reject a parameter the task notebook does not declare, or one the runner sets."""
    declared = papermill.inspect_notebook(str(task.notebook_path))
    for name in extra:
        if name in RUNNER_PARAMETERS:
            raise KluebookError(f"parameter {name!r} is set by the runner; use its own option")
        if name not in declared:
            raise KluebookError(
                f"unknown parameter {name!r} for {task.name}; known: {', '.join(declared)}"
            )


def preflight(specs: list[RunSpec]) -> None:
    """Check data and models of every run before any of them starts."""
    if any(s.profile == "paper" and s.data_source == "generated" for s in specs):
        raise KluebookError("the paper profile needs real data: --data-source official or hub")
    for spec in specs:
        data_dir_for(spec.task, spec.data_source, spec.data_dir or None)
    for model in sorted({s.model for s in specs}):
        if model != TINY_MODEL and not Path(model).exists():
            check_hub_model(model)
    if any(s.data_source == "hub" for s in specs):
        check_hub_dataset()


def check_hub_dataset(timeout: float = 10.0) -> None:
    import huggingface_hub

    try:
        huggingface_hub.dataset_info("klue/klue", timeout=timeout)
    except Exception as error:  # connection, proxy and timeout errors of several libraries
        raise KluebookError(
            f"cannot reach the Hugging Face hub for dataset klue/klue: {type(error).__name__}"
        ) from error


def notebook_code(path: Path) -> str:
    """The source of a notebook's cells, without outputs or metadata."""
    notebook = nbformat.read(path, as_version=4)
    return "\n\n".join(f"{cell.cell_type}:{cell.source}" for cell in notebook.cells)


def spec_fingerprint(spec: RunSpec) -> str:
    checksum = data_checksum(spec.task, spec.data_source, spec.data_dir or None)
    return records.fingerprint(
        notebook_code(spec.task.notebook_path),
        spec.parameters(),
        checksum,
        records.run_code_hash(spec.task),
    )


def is_done(spec: RunSpec, fingerprint: str) -> bool:
    record = records.read_record(spec.record_path)
    return (
        record is not None
        and record.get("status") == "succeeded"
        and record.get("fingerprint") == fingerprint
        and spec.notebook_path.exists()
    )


def execute(spec: RunSpec, force: bool = False, log_output: bool = True, say=print) -> str:
    """Run one notebook and write its record; return 'skipped', 'succeeded' or 'failed'.

    A lock per run keeps two runners on one checkout from running it twice: the second waits
    for the first, then finds the run done and skips it.
    """
    fingerprint = spec_fingerprint(spec)
    if not force and is_done(spec, fingerprint):
        return "skipped"
    spec.lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(spec.lock_path)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        say(f"  waiting: another runner is executing {spec.task.name} {spec.name}")
        lock.acquire()
    with lock:
        if not force and is_done(spec, fingerprint):
            return "skipped"
        return _execute_locked(spec, fingerprint, log_output)


def _execute_locked(spec: RunSpec, fingerprint: str, log_output: bool) -> str:
    started = time.time()
    staging = spec.output_dir / "executed.ipynb"
    outcome_path = spec.output_dir / records.OUTCOME_FILE
    staging.parent.mkdir(parents=True, exist_ok=True)
    outcome_path.unlink(missing_ok=True)
    try:
        with own_kernel() as kernel:
            papermill.execute_notebook(
                str(spec.task.notebook_path),
                str(staging),
                parameters=spec.parameters(),
                kernel_name=kernel,
                cwd=str(ROOT),
                log_output=log_output,
                progress_bar=False,
            )
        if not outcome_path.exists():
            raise KluebookError(
                f"the notebook finished without calling finish_run ({outcome_path})"
            )
        outcome = read_json(outcome_path)
    except Exception as error:
        record = records.run_record(
            spec.task,
            spec.parameters(),
            fingerprint,
            started,
            error=error,
            failed_notebook=_relative(staging),
        )
        records.write_record(spec.record_path, record)
        spec.notebook_path.unlink(missing_ok=True)
        return "failed"
    predictions = spec.record_path.with_suffix(".predictions.jsonl")
    predictions.parent.mkdir(parents=True, exist_ok=True)
    os.replace(spec.output_dir / records.PREDICTIONS_FILE, predictions)
    record = records.run_record(
        spec.task,
        spec.parameters(),
        fingerprint,
        started,
        outcome={**outcome, "config": spec.config or "default", "overrides": spec.extra},
        notebook=_relative(spec.notebook_path),
        predictions=_relative(predictions),
    )
    publish_notebook(staging, spec, record)  # its page ends with a card made from the record
    records.write_record(spec.record_path, record)
    return "succeeded"


KERNEL_NAME = "kluebook"
# What the kernel runs with besides the runner's environment: no progress bars and no tqdm
# warning (with this machine's paths) in the executed pages.
KERNEL_ENVIRONMENT = {
    "PYTHONWARNINGS": "ignore:IProgress not found",
    "TQDM_DISABLE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
}


@contextmanager
def own_kernel():
    """A Jupyter kernel that runs this interpreter, whatever `python3` kernel a user has installed
    elsewhere (its spec is written under the cache and put first on JUPYTER_PATH), started with
    KERNEL_ENVIRONMENT; yields its name."""
    from ipykernel.kernelspec import install

    prefix = CACHE / "jupyter"
    spec = prefix / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json"
    if not spec.exists() or sys.executable not in spec.read_text():
        install(kernel_name=KERNEL_NAME, display_name="kluebook", prefix=str(prefix))
    saved = dict(os.environ)
    path = os.pathsep.join(
        filter(None, [str(prefix / "share" / "jupyter"), saved.get("JUPYTER_PATH")])
    )
    os.environ.update(KERNEL_ENVIRONMENT, JUPYTER_PATH=path)
    try:
        yield KERNEL_NAME
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _relative(path: Path) -> str:
    """A path relative to the book root when it lies inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def publish_notebook(executed: Path, spec: RunSpec, record: dict | None = None) -> None:
    """Move an executed notebook into the book as its run's page: titled after the run, its
    parameters as a table, its outputs without noise or machine paths, and, given the run's
    record, ending with the run card (`kluebook.run_pages`)."""
    from kluebook.run_pages import publish

    publish(executed, spec, record)


@dataclass
class Summary:
    succeeded: list[RunSpec] = field(default_factory=list)
    skipped: list[RunSpec] = field(default_factory=list)
    failed: list[RunSpec] = field(default_factory=list)


def run_all(specs: list[RunSpec], force: bool = False, log_output: bool = True) -> Summary:
    """Execute every run in turn, going on after a failure."""
    logging.getLogger("papermill").setLevel(logging.INFO if log_output else logging.WARNING)
    summary = Summary()
    bar = tqdm(specs, unit="run", desc="kluebook run")
    for spec in bar:
        bar.set_postfix_str(f"{spec.task.name} · {spec.model} · seed {spec.seed}")
        bar.write(f"▶ {spec.task.name}: {spec.name}")
        outcome = execute(spec, force=force, log_output=log_output, say=bar.write)
        getattr(summary, outcome).append(spec)
        detail = ""
        if outcome == "failed":
            detail = f": {records.read_record(spec.record_path)['error']}"
        bar.write(f"  {outcome}{detail}")
    return summary
