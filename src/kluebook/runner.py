"""Executing the task notebooks with papermill over a run matrix (tasks x models x seeds).

Each run writes its executed notebook to book/runs/<task>/ and its record to results/. A run
whose record already holds the same fingerprint is skipped; a run that raises is recorded as
failed and the others go on.
"""

import logging
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import papermill
import yaml
from tqdm.auto import tqdm

from kluebook import records
from kluebook.data import data_checksum, data_dir_for
from kluebook.errors import KluebookError
from kluebook.modeling import TINY_MODEL
from kluebook.paths import CACHE, CONFIGS, RESULTS, ROOT, RUNS
from kluebook.tasks import Task, available_tasks, get_task
from kluebook.training import PROFILES, check_hub_model

# Parameters the runner sets itself; the rest may come from a matrix or from --set.
RUNNER_PARAMETERS = {
    "model",
    "profile",
    "data_source",
    "data_dir",
    "seed",
    "output_dir",
    "record_path",
}


@dataclass(frozen=True)
class RunSpec:
    """One cell of the run matrix."""

    task: Task
    model: str
    seed: int
    profile: str
    data_source: str
    data_dir: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.profile}-{records.model_slug(self.model)}-seed{self.seed}"

    @property
    def record_path(self) -> Path:
        return (
            RESULTS
            / self.profile
            / self.task.name
            / f"{records.model_slug(self.model)}-seed{self.seed}.json"
        )

    @property
    def notebook_path(self) -> Path:
        return RUNS / self.task.name / f"{self.name}.ipynb"

    @property
    def output_dir(self) -> Path:
        return CACHE / "outputs" / self.task.name / self.name

    def parameters(self) -> dict:
        return {
            "model": self.model,
            "profile": self.profile,
            "data_source": self.data_source,
            "data_dir": self.data_dir,
            "seed": self.seed,
            "output_dir": str(self.output_dir),
            "record_path": str(self.record_path),
            **self.extra,
        }


def load_matrix(profile: str) -> dict:
    """The run matrix configs/<profile>.yaml."""
    if profile not in PROFILES:
        raise KluebookError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    with open(CONFIGS / f"{profile}.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def plan(
    profile: str,
    tasks: list[str] | None = None,
    models: list[str] | None = None,
    seeds: list[int] | None = None,
    data_source: str | None = None,
    data_dir: str | None = None,
    extra: dict | None = None,
) -> list[RunSpec]:
    """The runs to execute: the matrix of `profile`, narrowed or replaced by the arguments."""
    matrix = load_matrix(profile)
    task_names = tasks or available_tasks()
    extra = {**matrix.get("parameters", {}), **(extra or {})}
    specs = []
    for name in task_names:
        task = get_task(name)
        if not task.notebook_path.exists():
            raise KluebookError(f"task {name!r} has no notebook yet ({task.notebook})")
        check_parameters(task, extra)
        for model in models or matrix["models"]:
            for seed in seeds or matrix["seeds"]:
                specs.append(
                    RunSpec(
                        task=task,
                        model=model,
                        seed=int(seed),
                        profile=profile,
                        data_source=data_source or matrix["data_source"],
                        data_dir=str(data_dir or matrix.get("data_dir") or ""),
                        extra=extra,
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
    return records.fingerprint(notebook_code(spec.task.notebook_path), spec.parameters(), checksum)


def is_done(spec: RunSpec, fingerprint: str) -> bool:
    record = records.read_record(spec.record_path)
    return (
        record is not None
        and record.get("status") == "succeeded"
        and record.get("fingerprint") == fingerprint
        and spec.notebook_path.exists()
    )


def execute(spec: RunSpec, force: bool = False, log_output: bool = True) -> str:
    """Run one notebook; return 'skipped', 'succeeded' or 'failed'."""
    fingerprint = spec_fingerprint(spec)
    if not force and is_done(spec, fingerprint):
        return "skipped"
    started = time.time()
    staging = spec.output_dir / "executed.ipynb"
    staging.parent.mkdir(parents=True, exist_ok=True)
    try:
        papermill.execute_notebook(
            str(spec.task.notebook_path),
            str(staging),
            parameters=spec.parameters(),
            kernel_name="python3",
            cwd=str(ROOT),
            log_output=log_output,
            progress_bar=False,
        )
        record = records.read_record(spec.record_path)
        if record is None or record.get("status") != "succeeded":
            raise KluebookError(f"the notebook finished without writing {spec.record_path}")
    except Exception as error:
        records.write_record(spec.record_path, failed_record(spec, fingerprint, error, started))
        spec.notebook_path.unlink(missing_ok=True)
        return "failed"
    publish_notebook(staging, spec)
    record.update(
        fingerprint=fingerprint,
        notebook=str(spec.notebook_path.relative_to(ROOT)),
        runner_wall_time_s=round(time.time() - started, 1),
    )
    record.pop("schema", None)
    records.write_record(spec.record_path, record)
    return "succeeded"


def publish_notebook(executed: Path, spec: RunSpec) -> None:
    """Move an executed notebook into the book, titled after its run.

    The notebook's default parameters are collapsed; the injected ones, which this run used,
    stay visible.
    """
    notebook = nbformat.read(executed, as_version=4)
    for cell in notebook.cells:
        if "parameters" in cell.metadata.get("tags", []):
            cell.metadata["tags"].append("hide-input")
    heading = next(
        c for c in notebook.cells if c.cell_type == "markdown" and c.source.startswith("# ")
    )
    title, _, rest = heading.source.partition("\n")
    heading.source = f"{title}: {spec.model}, {spec.profile}, seed {spec.seed}\n{rest}"
    spec.notebook_path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, spec.notebook_path)
    executed.unlink()


def failed_record(spec: RunSpec, fingerprint: str, error: Exception, started: float) -> dict:
    """A record that says the run failed, and why; it carries no metrics."""
    message = str(error).strip().splitlines()
    return {
        "task": spec.task.name,
        "task_version": spec.task.version,
        "model": spec.model,
        "profile": spec.profile,
        "seed": spec.seed,
        "parameters": spec.parameters(),
        "status": "failed",
        "error": f"{type(error).__name__}: {message[-1] if message else ''}",
        "traceback": traceback.format_exc(limit=5),
        "failed_notebook": str(spec.output_dir / "executed.ipynb"),
        "fingerprint": fingerprint,
        "git_commit": records.git_commit(),
        "finished_at": records.now(),
        "wall_time_s": round(time.time() - started, 1),
    }


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
        outcome = execute(spec, force=force, log_output=log_output)
        getattr(summary, outcome).append(spec)
        detail = ""
        if outcome == "failed":
            detail = f": {records.read_record(spec.record_path)['error']}"
        bar.write(f"  {outcome}{detail}")
    return summary
