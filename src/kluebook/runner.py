"""Executing the task notebooks with papermill over a run matrix (tasks x models x seeds).

Each run that succeeds writes its record, predictions and executed notebook to
results/<profile>/<task>/ (`kluebook report` renders its page from them). A run whose record
already holds the same fingerprint is skipped. A run that fails, is interrupted or cannot be
stored is recorded beside the last good one (`<name>.failed.json`), never over it, and the others
go on. Where a run executes is an executor's business (kluebook.executors: here one at a time,
here several at once, or on a Dask cluster); what it produced comes back as data
(kluebook.worker) and is written here, the same way for every executor.
"""

import itertools
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path

import papermill
import yaml
from filelock import FileLock, Timeout
from tqdm.auto import tqdm

from kluebook import executors, fingerprints, provenance, records
from kluebook.checkpoints import check_model
from kluebook.data import data_checksum, data_dir_for, hub_dataset_revision
from kluebook.errors import KluebookError
from kluebook.json_files import write_text_atomic
from kluebook.kept_notebook import clean_notebook
from kluebook.paths import CACHE, CONFIGS, RESULTS, ROOT, RUNS
from kluebook.prompting.checks import check_prompted_models, check_prompted_parameters
from kluebook.recipes import PROFILES, recipe_parameters, resolve_recipe
from kluebook.tasks import Task, available_tasks, get_task
from kluebook.tiny_model import TINY_MODEL
from kluebook.worker import Interrupted, RunProducts, RunRequest, produce, stop_kernels

# Parameters the runner sets itself; the rest may come from a matrix or from --set.
RUNNER_PARAMETERS = {
    "model",
    "profile",
    "data_source",
    "data_dir",
    "seed",
    "output_dir",
    "task",  # the prompted notebook's
    "base_url",  # a prompted run's server (--base-url)
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
    # Hub revisions: as asked (a commit, tag or branch; "" for the current one), then resolved
    # to commits by `pin_revisions`; only hub models and hub data have them.
    model_revision: str = ""
    data_revision: str = ""
    method: str = fingerprints.FINE_TUNED  # or prompted: the model answers prompts, untrained
    base_url: str = ""  # a prompted run's OpenAI-compatible server; "" for a local model

    @cached_property
    def config(self) -> str:
        """The configuration beyond model and seed, readable; "" for the profile's default.
        A prompted run's begins with `prompted` (then `server` where a server answers: not its
        address, which may change), so it never shares a fine-tuned or a local run's name."""
        parts = [fingerprints.PROMPTED] if self.method == fingerprints.PROMPTED else []
        parts += ["server"] if self.base_url else []
        parts += [f"{key}={value}" for key, value in sorted(self.extra.items())]
        if (self.data_source, self.data_dir) != self.default_data:
            parts.append(self.data_source)
            if self.data_source != "hub":
                checksum = data_checksum(self.task, self.data_source, self.data_dir or None)
                parts.append(f"data-{checksum[:8]}")
        return ",".join(parts).replace("/", "_").replace(" ", "_")

    @property
    def stem(self) -> str:
        config = f"-{self.config}" if self.config else ""
        return f"{provenance.model_slug(self.model)}{config}-seed{self.seed}"

    @property
    def name(self) -> str:
        return f"{self.profile}-{self.stem}"

    @property
    def record_path(self) -> Path:
        """The record of the run's last success."""
        return RESULTS / self.profile / self.task.name / f"{self.stem}.json"

    @property
    def failure_path(self) -> Path:
        """The record of the run's last failure or interruption, if it came after its success."""
        return self.record_path.with_suffix(".failed.json")

    @property
    def executed_path(self) -> Path:
        """The executed notebook of the run's last success, the source of its page."""
        return self.record_path.with_suffix(".ipynb")

    @property
    def notebook_path(self) -> Path:
        return RUNS / self.task.name / f"{self.name}.ipynb"

    @property
    def source_notebook(self) -> Path:
        """The notebook the run executes: its task's, or the prompted one."""
        return fingerprints.method_notebook(self.task, self.method)

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
            **({"task": self.task.name} if self.method == fingerprints.PROMPTED else {}),
            **({"base_url": self.base_url} if self.base_url else {}),
            **{name: value for name, value in self.revisions.items() if value},
            **self.extra,
        }

    @property
    def revisions(self) -> dict:
        return {"model_revision": self.model_revision, "data_revision": self.data_revision}

    @property
    def checksum(self) -> str:
        """The data checksum of the run (hub data: the dataset and its commit)."""
        return data_checksum(self.task, self.data_source, self.data_dir or None, self.data_revision)


MATRIX_KEYS = {"profile", "method", "data_source", "data_dir", "models", "seeds", "parameters"}
METHODS = (fingerprints.FINE_TUNED, fingerprints.PROMPTED)


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
    if matrix.get("method", fingerprints.FINE_TUNED) not in METHODS:
        raise KluebookError(f"{path}: method must be one of {', '.join(METHODS)}")
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


@dataclass(frozen=True)
class Options:
    """What a command asks of the runner, parsed once: the run matrix (the profile's, or a
    sweep file's) and what narrows or overrides it (see `plan`)."""

    profile: str | None = "smoke"
    tasks: list[str] | None = None
    models: list[str] | None = None
    seeds: list[int] | None = None
    data_source: str | None = None
    data_dir: str | None = None
    extra: dict = field(default_factory=dict)
    matrix_path: Path | None = None
    model_revision: str = ""
    data_revision: str = ""
    base_url: str = ""


def planned(options: Options) -> list[RunSpec]:
    """The runs `options` ask for, as planned (`plan`): their revisions as asked."""
    return plan(**{f.name: getattr(options, f.name) for f in fields(Options)})


def prepare(options: Options) -> list[RunSpec]:
    """The runs `options` ask for, checked and pinned (`preflight`): what a sweep executes."""
    return preflight(planned(options))


def plan(
    profile: str | None = "smoke",
    tasks: list[str] | None = None,
    models: list[str] | None = None,
    seeds: list[int] | None = None,
    data_source: str | None = None,
    data_dir: str | None = None,
    extra: dict | None = None,
    matrix_path: str | Path | None = None,
    model_revision: str = "",
    data_revision: str = "",
    base_url: str = "",
) -> list[RunSpec]:
    """The runs to execute: a run matrix (the profile's, or a sweep file's), narrowed or
    replaced by the arguments; `extra` overrides the matrix's parameters. `base_url`: the
    server that answers a prompted matrix's runs."""
    matrix = load_matrix(profile, matrix_path)
    profile = matrix["profile"]
    defaults = load_matrix(profile) if matrix_path else matrix
    default_data = (defaults["data_source"], str(defaults.get("data_dir") or ""))
    grid = parameter_grid({**(matrix.get("parameters") or {}), **(extra or {})})
    method = matrix.get("method", fingerprints.FINE_TUNED)
    if base_url and method != fingerprints.PROMPTED:
        raise KluebookError("--base-url is for prompted runs (--method prompted)")
    specs = []
    for name in tasks or available_tasks():
        task = get_task(name)
        notebook = fingerprints.method_notebook(task, method)
        if not notebook.exists():
            raise KluebookError(f"task {name!r} has no notebook yet ({notebook.name})")
        for overrides in grid:
            check_parameters(task, overrides, models or matrix["models"], profile, method)
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
                            model_revision=model_revision,
                            data_revision=data_revision,
                            method=method,
                            base_url=base_url,
                        )
                    )
    return specs


def check_parameters(
    task: Task, extra: dict, models=(TINY_MODEL,), profile="smoke", method=fingerprints.FINE_TUNED
) -> None:
    """Reject, in one line, a parameter the run's notebook does not declare and that is not a
    recipe field, a parameter the runner sets, and a value of the wrong type or range, or a
    combination the recipe refuses, for any of the models in this profile (a prompted run has
    no recipe)."""
    declared = papermill.inspect_notebook(str(fingerprints.method_notebook(task, method)))
    settable = recipe_parameters(task) if method == fingerprints.FINE_TUNED else ()
    for name, value in extra.items():
        if name in RUNNER_PARAMETERS:
            raise KluebookError(f"parameter {name!r} is set by the runner; use its own option")
        if name in settable:
            continue
        if name not in declared:
            known = [*declared, *settable]
            raise KluebookError(
                f"unknown parameter {name!r} for {task.name}; known: {', '.join(known)}"
            )
        kind = declared[name]["inferred_type_name"]
        if kind == "int" and value is not None and (type(value) is not int or value < 0):
            raise KluebookError(f"{name} must be a whole number >= 0, got {value!r}")
    if method == fingerprints.PROMPTED:
        check_prompted_parameters(task, extra)
    recipe = {name: value for name, value in extra.items() if name in settable}
    for model in (
        models if method == fingerprints.FINE_TUNED else ()
    ):  # the recipe checks its fields
        resolve_recipe(task, model, profile, recipe)


def preflight(specs: list[RunSpec]) -> list[RunSpec]:
    """Check data and models of every run before any of them starts; return the runs with their
    hub revisions resolved to commits (`pin_revisions`)."""
    if any(s.profile == "paper" and s.data_source == "generated" for s in specs):
        raise KluebookError("the paper profile needs real data: --data-source official or hub")
    for spec in specs:
        data_dir_for(spec.task, spec.data_source, spec.data_dir or None)
        if spec.data_revision and spec.data_source != "hub":
            raise KluebookError("--data-revision is for --data-source hub")
    local = {s.model for s in specs if s.method == fingerprints.PROMPTED and not s.base_url}
    check_prompted_models(local)
    return pin_revisions(specs)


def pin_revisions(specs: list[RunSpec]) -> list[RunSpec]:
    """Each run with its model and hub data revisions resolved to commits, once per model and
    per dataset config (HF_HUB_OFFLINE=1: looked up in the local caches); a model or dataset
    that cannot be found fails here, in one line, before any run. A model behind a server is
    the server's: it has no revision here."""
    if any(s.base_url and s.model_revision for s in specs):
        raise KluebookError("--model-revision is for models run here, not behind --base-url")
    models = {(s.model, s.model_revision) for s in specs if not s.base_url}
    model_commits = {pair: check_model(*pair) for pair in sorted(models)}
    configs = {(s.task.name, s.data_revision) for s in specs if s.data_source == "hub"}
    data_commits = {
        (name, revision): hub_dataset_revision(get_task(name), revision)
        for name, revision in sorted(configs)
    }
    return [
        replace(
            spec,
            model_revision=model_commits.get((spec.model, spec.model_revision), ""),
            data_revision=data_commits.get((spec.task.name, spec.data_revision), ""),
        )
        for spec in specs
    ]


def spec_inputs(spec: RunSpec, code: str | None = None) -> fingerprints.Inputs:
    """What a run is made from today (see `fingerprints.Inputs`)."""
    code = fingerprints.notebook_code(spec.source_notebook) if code is None else code
    checksum = spec.checksum
    parameters = provenance.portable_parameters(spec.parameters())
    return fingerprints.inputs(spec.task, code, parameters, checksum, spec.method)


def run_request(spec: RunSpec, log_output: bool = False) -> tuple[RunRequest, fingerprints.Inputs]:
    """What is sent to where the run executes, and the inputs its record will carry."""
    text = spec.source_notebook.read_text(encoding="utf-8")
    code = fingerprints.cells_code(text)
    request = RunRequest(
        task=spec.task.name,
        name=spec.name,
        parameters=spec.parameters(),
        notebook=text,
        code_hash=fingerprints.run_code_hash(spec.task, spec.method),
        method=spec.method,
        data_checksum=spec.checksum,
        log_output=log_output,
    )
    return request, spec_inputs(spec, code)


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
        started = time.time()
        try:
            products = produce_with(request)
        except (Interrupted, KeyboardInterrupt):
            stop_kernels()
            stopped = RunProducts(started=started, host="", finished=time.time())
            stopped.error = "Interrupted: the sweep was stopped (Ctrl-C) during this run"
            stopped.traceback = ""
            store_failure(spec, run_inputs, stopped, status="interrupted")
            raise
        except Exception as error:  # the executor lost the run: a dead worker, too many times
            products = RunProducts(started=time.time(), host="", finished=time.time())
            products.error, products.traceback = records.describe_error(error)
        try:
            return store(spec, run_inputs, products)
        except Exception as error:  # an invalid outcome, a full disk: this run's failure only
            return _store_failed(spec, run_inputs, products, error, say)


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
    predictions = spec.record_path.with_suffix(".predictions.jsonl")
    record = records.run_record(
        spec.task,
        spec.parameters(),
        run_inputs,
        products.started,
        products.finished,
        outcome=products.outcome,
        notebook=_relative(spec.notebook_path),
        executed=_relative(spec.executed_path),
        predictions=_relative(predictions),
        **facts,
    )
    files = {
        predictions: products.predictions.decode("utf-8"),
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
        files = {"failed_notebook": _relative(staging)}
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


def _store_failed(
    spec: RunSpec, run_inputs: fingerprints.Inputs, products: RunProducts, error: Exception, say
) -> str:
    """Record a run whose products could not be stored as failed, with the error that stopped
    it; where even that record cannot be written, say why. Either way nothing of this attempt
    replaces the run's last success."""
    failed = RunProducts(started=products.started, host=products.host, finished=products.finished)
    failed.executed = products.executed
    error_line, failed.traceback = records.describe_error(error)
    failed.error = f"storing the run failed: {error_line}"
    try:
        return store_failure(spec, run_inputs, failed)
    except Exception as again:  # the disk is still full, say
        say(
            f"  {spec.task.name} {spec.name}: {failed.error}; its failure could not be recorded "
            f"either ({records.describe_error(again)[0]})"
        )
        return "failed"


def _relative(path: Path) -> str:
    """A path relative to the book root when it lies inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def spec_of(record: records.RunRecord) -> RunSpec:
    """The run a record was made by, its model named by id: to name its files and render its
    page without its data on this machine."""
    defaults = load_matrix(record.profile)
    spec = RunSpec(
        task=get_task(record.task),
        model=record.model,
        seed=record.seed,
        profile=record.profile,
        data_source=record.data_source,
        data_dir=str(record.parameters.get("data_dir") or ""),
        extra=record.overrides,
        default_data=(defaults["data_source"], str(defaults.get("data_dir") or "")),
        model_revision=record.parameters.get("model_revision", ""),
        data_revision=record.parameters.get("data_revision", ""),
        method=record.method,
        base_url=record.parameters.get("base_url", ""),  # a server, by no address (`SERVER`)
    )
    # The configuration as the run named it (it may name data that are not here).
    spec.__dict__["config"] = "" if record.is_default_config else record.config
    return spec


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
