"""Run records: one JSON file per run (task, profile, model, configuration, seed), the data
behind every table.

A record is one typed structure, `RunRecord`, made in one place (`run_record`) for a run that
succeeded, failed or was interrupted: the notebook hands over its `Outcome`, the runner adds the
facts of the run (`Inputs`: what the run was made from, each part hashed). Reading validates
(`read_records`): a file that is cut short or is not a record is named in a one-line warning and
listed as unreadable, never taken for a result and never silently dropped.

Local checkpoints are named by content (`model_id`): the folder's name and a hash of its files,
never its path.
"""

import ast
import hashlib
import json
import platform
import subprocess
import sys
import traceback
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache, lru_cache
from importlib.metadata import PackageNotFoundError, distribution, version
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kluebook import __version__
from kluebook.code_closure import PARSING, closure, file_imports, notebook_imports
from kluebook.data import file_sha256
from kluebook.errors import KluebookError
from kluebook.json_files import read_json, write_json
from kluebook.paths import CHECKOUT, PROMPTED_NOTEBOOK, RESULTS, ROOT, scrub
from kluebook.prompt_items import TEMPLATE_FILE
from kluebook.repository import without_install_address

RECORD_SCHEMA = 2
# What a notebook leaves in its output folder for the runner to turn into the record.
OUTCOME_FILE = "outcome.json"
PREDICTIONS_FILE = "predictions.jsonl"
# How a run was made: a checkpoint fine-tuned by the task's notebook, or a language model
# prompted by the prompted notebook (`PROMPTED_NOTEBOOK`).
FINE_TUNED, PROMPTED = "fine-tuned", "prompted"
Method = Literal["fine-tuned", "prompted"]
LIBRARIES = (
    "torch",
    "transformers",
    "datasets",
    "tokenizers",
    "scikit-learn",
    "numpy",
    "papermill",
)


def local_model(model: str) -> Path | None:
    """The folder of a local checkpoint (as given, or inside the book root), else None."""
    for path in (Path(model), ROOT / model):
        if path.is_dir():
            return path.resolve()
    return None


@cache
def folder_digest(folder: Path) -> str:
    """SHA-256 over the relative names and contents of every file in a folder."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def model_id(model: str) -> str:
    """How a run names its model: a hub id as it is; a local checkpoint folder by its name and
    a hash of its files (`standin-roberta@1a2b3c4d5e6f`), so no path of the machine is kept and
    a changed checkpoint is another model."""
    folder = local_model(model)
    return model if folder is None else f"{folder.name}@{folder_digest(folder)[:12]}"


def model_slug(model: str) -> str:
    """A file-name-safe form of a model's id: `klue/roberta-base` -> `klue--roberta-base`,
    a local folder -> `standin-roberta-1a2b3c4d5e6f`."""
    return model_id(model).strip("/").replace("/", "--").replace(" ", "_").replace("@", "-")


def portable_parameters(parameters: dict) -> dict:
    """A run's parameters as its record keeps them: the model by its id, no path of this
    machine (a data folder inside the book root is relative to it)."""
    portable = {**parameters, "model": model_id(parameters["model"])}
    for name in ("data_dir", "output_dir"):
        if isinstance(portable.get(name), str):
            portable[name] = scrub(portable[name])
    return portable


def git_commit() -> str | None:
    """The commit of the code that runs: the checkout's, suffixed `-dirty` when tracked files
    have changed, or for a package installed from git, the commit pip recorded; else None."""
    if CHECKOUT is None:
        return installed_commit()
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=CHECKOUT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=CHECKOUT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("-dirty" if dirty else "")


def installed_commit() -> str | None:
    """The commit an installed package was built from, when pip installed it from git."""
    try:
        direct_url = distribution("kluebook").read_text("direct_url.json")
        return json.loads(direct_url or "{}").get("vcs_info", {}).get("commit_id")
    except (PackageNotFoundError, json.JSONDecodeError, AttributeError):
        return None


def library_versions() -> dict[str, str]:
    versions = {"python": platform.python_version(), "kluebook": __version__}
    for name in LIBRARIES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def device_description() -> str:
    import torch  # lazy: torch takes seconds to import, and most commands never need it

    if torch.cuda.is_available():
        return f"cuda: {torch.cuda.get_device_name(0)}"
    return f"cpu: {platform.machine()}, {torch.get_num_threads()} threads"


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                node.body = node.body[1:] or [ast.Pass()]
    return tree


def _canonical(node) -> Any:
    """A syntax tree as plain data, the same on every supported Python (fields that are None
    or empty are left out, as newer Pythons add such fields)."""
    if isinstance(node, ast.AST):
        fields = {}
        for name in node._fields:
            value = getattr(node, name, None)
            if value is not None and value != []:
                fields[name] = _canonical(value)
        return [type(node).__name__, fields]
    if isinstance(node, list):
        return [_canonical(item) for item in node]
    return repr(node)


def code_digest(path: Path) -> str:
    """SHA-256 of what a file of code does: a Python module's syntax tree without docstrings
    (comments and formatting do not count), a YAML file's data; other files' bytes."""
    content = path.read_bytes()
    if path.suffix not in {".py", ".yaml", ".yml"}:
        return hashlib.sha256(content).hexdigest()
    return _behaviour_digest(path.suffix, content, str(path))


@lru_cache(maxsize=4096)
def _behaviour_digest(suffix: str, content: bytes, name: str) -> str:
    """`code_digest` of a module or YAML file, by its bytes: a sweep fingerprints every run with
    the same files, and parsing them again for each run took most of a no-change rebuild."""
    if suffix == ".py":
        with PARSING:
            tree = _without_docstrings(ast.parse(content.decode("utf-8"), name))
        text = json.dumps(_canonical(tree))
    else:
        text = json.dumps(yaml.safe_load(content.decode("utf-8")), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _digest_of(files: list[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    for name, path in files:
        digest.update(f"{name}\0{code_digest(path)}\0".encode())
    return digest.hexdigest()


def task_imports(task) -> list[str]:
    """The kluebook modules the code of the task's folder imports (the task registry imports
    that code by a computed name, which the closure of the notebook's imports cannot see)."""
    imported = []
    for path in sorted(task.folder.rglob("*.py")):
        if "__pycache__" not in path.parts:
            name = ".".join(path.relative_to(task.folder).with_suffix("").parts)
            imported += file_imports(path, f"task.{name}".removesuffix(".__init__"))
    return imported


def method_notebook(task, method: str = FINE_TUNED) -> Path:
    """The notebook a run of `task` made by `method` executes."""
    return PROMPTED_NOTEBOOK if method == PROMPTED else task.notebook_path


def run_modules(task, method: str = FINE_TUNED) -> list[tuple[str, Path]]:
    """The shared modules a run of `task` executes: the import closure of what its notebook and
    its task folder import, apart from the modules of the task folder (`task_code_hash`)."""
    notebook = method_notebook(task, method)
    entry = notebook_imports(notebook.read_text(encoding="utf-8")) if notebook.is_file() else ()
    own = f"kluebook.tasks.{task.name}"
    return [
        (name, path)
        for name, path in closure([*entry, *task_imports(task)]).items()
        if name != own and not name.startswith(own + ".")
    ]


def shared_code_hash(task, method: str = FINE_TUNED) -> str:
    """A hash of the shared modules a run of `task` executes (`run_modules`), by behaviour
    (`code_digest`)."""
    return _digest_of(run_modules(task, method))


def task_code_hash(task) -> str:
    """A hash of the task's folder: its code and task.yaml (which holds its version); not its
    prompt template, an input of prompted runs only (`template_digest`)."""
    files = [
        (f"task/{path.relative_to(task.folder).as_posix()}", path)
        for path in sorted(task.folder.rglob("*"))
        if path.suffix in {".py", ".yaml"}
        and "__pycache__" not in path.parts
        and path != task.folder / TEMPLATE_FILE
    ]
    return _digest_of(files)


def template_digest(task) -> str:
    """The SHA-256 of the task's prompt template, as it is on disk: an input of prompted runs."""
    path = task.folder / TEMPLATE_FILE
    if not path.is_file():
        raise KluebookError(f"task {task.name!r} has no prompt template ({TEMPLATE_FILE})")
    return file_sha256(path)


def run_code_hash(task, method: str = FINE_TUNED) -> str:
    """A hash of the code a run of `task` executes: the shared run modules, the task's folder
    (and, prompted, its template) and the package version."""
    parts = [__version__, shared_code_hash(task, method), task_code_hash(task)]
    if method == PROMPTED:
        parts.append(template_digest(task))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def notebook_code(path: Path) -> str:
    """`cells_code` of the notebook at `path`."""
    return cells_code(path.read_text(encoding="utf-8"))


def cells_code(notebook_text: str) -> str:
    """The source of a notebook's cells, without outputs or metadata, and without the address
    its first cell installs kluebook from where it is missing (a fork that sets its own
    repository address runs the same code)."""
    import nbformat  # lazy: slow to import, and most commands read no notebook

    notebook = nbformat.reads(notebook_text, as_version=4)
    cells = (f"{cell.cell_type}:{cell.source}" for cell in notebook.cells)
    return without_install_address("\n\n".join(cells))


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Inputs(BaseModel):
    """What a run was made from, each part hashed: a finished run is reused while every part is
    unchanged, and a record whose parts differ from today's says which input changed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    notebook: str
    parameters: str
    data: str
    task_code: str
    shared_code: str
    task_version: int
    package: str
    template: str | None = None  # the prompt template's digest; prompted runs only

    @property
    def fingerprint(self) -> str:
        return text_digest(json.dumps(self.model_dump(exclude_none=True), sort_keys=True))

    def changed(self, current: "Inputs | dict", parts: tuple[str, ...] | None = None) -> list[str]:
        """The inputs that differ from `current`, in words (`INPUT_NAMES`)."""
        now = current if isinstance(current, dict) else current.model_dump()
        mine = self.model_dump()
        return [INPUT_NAMES[k] for k in parts or INPUT_NAMES if k in now and mine.get(k) != now[k]]


INPUT_NAMES = {
    "notebook": "notebook",
    "parameters": "parameters",
    "data": "data",
    "task_code": "task code",
    "shared_code": "shared code",
    "task_version": "task version",
    "package": "kluebook version",
    "template": "prompt template",
}
# The inputs the report can check without the data: the code and notebook a record was made by.
CODE_INPUTS = ("notebook", "task_code", "shared_code", "task_version", "package", "template")


def inputs(
    task, code: str, parameters: dict, data_checksum: str, method: str = FINE_TUNED
) -> Inputs:
    """The inputs of a run of `task` made by `method` with these parameters
    (`portable_parameters`) and data."""
    return Inputs(
        notebook=text_digest(code),
        parameters=text_digest(json.dumps(parameters, sort_keys=True, ensure_ascii=False)),
        data=data_checksum,
        task_code=task_code_hash(task),
        shared_code=shared_code_hash(task, method),
        task_version=task.version,
        package=__version__,
        template=template_digest(task) if method == PROMPTED else None,
    )


def current_code(task, method: str = FINE_TUNED) -> dict:
    """The code inputs (`CODE_INPUTS`) a run of `task` made by `method` would be made from
    today."""
    return {
        "notebook": text_digest(notebook_code(method_notebook(task, method))),
        "task_code": task_code_hash(task),
        "shared_code": shared_code_hash(task, method),
        "task_version": task.version,
        "package": __version__,
        "template": template_digest(task) if method == PROMPTED else None,
    }


def stale_inputs(record: "RunRecord", current: dict | None) -> list[str]:
    """The code inputs that changed since a record was made, in words; [] for a current one
    (`current` is `current_code` of its task and method, None for a task that is gone)."""
    if current is None:
        return ["task"]
    return record.inputs.changed(current, CODE_INPUTS)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Interval(BaseModel):
    model_config = ConfigDict(extra="forbid")
    low: float
    high: float


class Bootstrap(BaseModel):
    model_config = ConfigDict(extra="forbid")
    resamples: int
    seed: int
    unit: str


class Checkpoint(BaseModel):
    """A dev evaluation of the training: its step and epoch, then the task's metrics (named as
    the task names them)."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, float]

    step: int | None = None
    epoch: float | None = None


class Gpu(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cuda_visible_device: str  # as the machine numbers it
    name: str


class Prompted(BaseModel):
    """How a prompted run asked its model (`kluebook.prompting`) and what it could not read."""

    model_config = ConfigDict(extra="forbid")

    shots: int  # demonstrations before every query, drawn from train
    demonstration_seed: int  # the seed of that draw
    mode: Literal["rank", "generate"]
    template_digest: str  # SHA-256 of the task's prompt.yaml
    unparsable: int  # answers the task's parser could not read, scored as wrong
    backend: dict[str, Any]  # the backend's provenance, no path of this machine
    first_prompt: str  # the first dev item's prompt as the model was given it
    first_answer: str  # its raw answer
    first_parsed: dict[str, Any]  # its prediction line


class Outcome(BaseModel):
    """What a notebook hands over when it finishes (`notebook.finish_run`, outcome.json)."""

    model_config = ConfigDict(extra="forbid")

    model_revision: str
    recipe: dict[str, Any]  # the recipe as it resolved for the run, parameter by parameter
    deviations: list[str] = []
    metrics: dict[str, float | None]
    best_checkpoint: Checkpoint = Checkpoint()
    last_checkpoint: Checkpoint = Checkpoint()
    counts: dict[str, int] = {}  # examples (or windows, turns) per split, as the task counts
    data_checksum: str
    libraries: dict[str, str] = {}
    device: str = ""
    devices: list[Gpu] | None = None  # the GPUs the run saw and used
    started_at: str | None = None
    notebook_wall_time_s: float | None = None
    kernel_cpu_s: float | None = None
    train_examples_per_second: float | None = None
    peak_memory_mb: float | None = None
    peak_gpu_memory_mb: float | None = None
    intervals: dict[str, Interval] | None = None  # bootstrap intervals of the metrics
    bootstrap: Bootstrap | None = None
    prompted: Prompted | None = None  # a prompted run's prompting


# The configuration of a run made with its profile's recipe (no sweep, no --set).
DEFAULT_CONFIG = "default"


class RunRecord(BaseModel):
    """A run record: the facts of the run, then its `Outcome` (a run that succeeded) or its
    error (a run that failed or was interrupted).

    In the file the outcome's fields sit beside the facts (`as_dict`, the layout records have
    always had); reading nests them again."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_version: Literal[2] = Field(RECORD_SCHEMA, alias="schema")
    status: Literal["succeeded", "failed", "interrupted"]
    task: str
    task_version: int
    model: str
    profile: str
    seed: int
    data_source: str
    method: Method = FINE_TUNED
    config: str = DEFAULT_CONFIG
    overrides: dict[str, Any] = {}
    parameters: dict[str, Any]
    fingerprint: str
    inputs: Inputs
    git_commit: str | None = None
    finished_at: str
    wall_time_s: float
    host: str = ""
    kernel_environment: dict[str, str] = {}
    notebook: str | None = None  # the run's page in the book
    executed: str | None = None  # the executed notebook the page is rendered from
    predictions: str | None = None
    failed_notebook: str | None = None  # how far a failed run got
    error: str | None = None
    traceback: str | None = None
    outcome: Outcome | None = None  # a run that succeeded has one, no other has

    @model_validator(mode="before")
    @classmethod
    def _nest_outcome(cls, data: Any) -> Any:
        """The outcome's fields, beside the facts in a file, as the record's `outcome`."""
        if not isinstance(data, dict) or "outcome" in data:
            return data
        outcome = {k: v for k, v in data.items() if k in Outcome.model_fields}
        facts = {k: v for k, v in data.items() if k not in outcome}
        if data.get("status") == "succeeded":
            return {**facts, "outcome": outcome}
        if outcome:
            status = data.get("status")
            raise ValueError(f"a {status} run has no outcome, yet has {', '.join(outcome)}")
        return facts

    @model_validator(mode="after")
    def _outcome_or_error(self):
        if self.status == "succeeded" and self.outcome is None:
            raise ValueError("a succeeded run records its outcome")
        if self.status != "succeeded" and self.outcome is not None:
            raise ValueError(f"a {self.status} run has no outcome")
        if self.status != "succeeded" and not self.error:
            raise ValueError(f"a {self.status} run records its error")
        if self.fingerprint != self.inputs.fingerprint:
            raise ValueError("the fingerprint is not that of the inputs")
        return self

    @property
    def dev_set(self) -> tuple[str | None, int | None]:
        """What names the dev set the run scored: its data's checksum and its dev limit."""
        checksum = self.outcome.data_checksum if self.outcome else None
        return checksum, self.parameters.get("dev_limit")

    @property
    def is_default_config(self) -> bool:
        """Whether the run used its profile's recipe (no sweep label, no --set)."""
        return self.config == DEFAULT_CONFIG

    def as_dict(self) -> dict:
        """The record as its file holds it: the facts, then the outcome's fields, the GPUs
        among the facts, None left out, and the method only for a prompted run (a fine-tuned
        run's file is as records have always been)."""
        flat = self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"outcome"})
        if flat["method"] == FINE_TUNED:
            del flat["method"]
        if self.outcome is not None:
            flat.update(self.outcome.model_dump(mode="json", exclude_none=True))
        return {k: flat[k] for k in sorted(flat, key=_FILE_LAYOUT.index)}


def _file_layout() -> list[str]:
    facts = [f.alias or name for name, f in RunRecord.model_fields.items() if name != "outcome"]
    at = facts.index("kernel_environment") + 1
    outcome = [name for name in Outcome.model_fields if name != "devices"]
    return [*facts[:at], "devices", *facts[at:], *outcome]


# The order of a record file's fields (`RunRecord.as_dict`), as records have always been written.
_FILE_LAYOUT = _file_layout()


def describe_error(error: BaseException) -> tuple[str, str]:
    """The one-line error and the short traceback that a failed run's record keeps, without
    the paths of this machine (the record may be committed and published)."""
    lines = str(error).strip().splitlines()
    return (
        scrub(f"{type(error).__name__}: {lines[-1] if lines else ''}"),
        scrub("".join(traceback.format_exception(error, limit=5))),
    )


def run_record(
    task,
    parameters: dict,
    run_inputs: Inputs,
    started: float,
    finished: float,
    outcome: dict | None = None,
    failure: tuple[str, str] | None = None,
    status: str = "failed",
    **facts,
) -> RunRecord:
    """The record of one run: what ran and where (`facts`: configuration, host, files), then
    the notebook's `outcome` or, for a run that failed or was interrupted (`status`), its
    `failure`: the one-line error and the traceback, as `describe_error` wrote them.

    Files named in `facts` are relative to the book root."""
    parameters = portable_parameters(parameters)
    record = {
        "task": task.name,
        "task_version": task.version,
        "model": parameters["model"],
        "profile": parameters["profile"],
        "seed": parameters["seed"],
        "data_source": parameters["data_source"],
        "parameters": parameters,
        "fingerprint": run_inputs.fingerprint,
        "inputs": run_inputs,
        "git_commit": git_commit(),
        "finished_at": now(),
        "wall_time_s": round(finished - started, 1),
        **facts,
    }
    if failure is None:
        return RunRecord.model_validate(
            {**record, "outcome": Outcome.model_validate(outcome or {}), "status": "succeeded"}
        )
    error, trace = failure
    failed = {"status": status, "error": error, "traceback": trace}
    return RunRecord.model_validate({**record, **failed})


def write_record(path: str | Path, record: RunRecord) -> None:
    """Write a record atomically."""
    write_json(path, record.as_dict())


def _reason(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        loc = first["loc"][1:] if first["loc"][:1] == ("outcome",) else first["loc"]  # as filed
        where = ".".join(str(part) for part in loc) or "the record"
        more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
        return f"not a run record of schema {RECORD_SCHEMA}: {where}: {first['msg']}{more}"
    return str(error).split(": ", 1)[-1] if isinstance(error, KluebookError) else str(error)


def parse_record(path: str | Path) -> RunRecord:
    """A record, validated; a KluebookError naming the file if it is not one."""
    try:
        return RunRecord.model_validate(read_json(path))
    except (KluebookError, ValidationError) as error:
        raise KluebookError(f"{path}: {_reason(error)}") from error


def read_record(path: str | Path) -> RunRecord | None:
    """A record, or None if there is none or it is unreadable (never taken for a result)."""
    try:
        return parse_record(path)
    except KluebookError:
        return None


@dataclass(frozen=True)
class Unreadable:
    """A file under results/ that is not a readable record, and why."""

    path: str  # relative to the book root where it is inside it
    reason: str


def read_records(results: Path = RESULTS, warn=True) -> tuple[list[RunRecord], list[Unreadable]]:
    """Every record under results/, and the files there that are not readable records (each
    named in a one-line warning on stderr when `warn`)."""
    found, unreadable = [], []
    for path in sorted(results.rglob("*.json")):
        try:
            found.append(parse_record(path))
        except KluebookError as error:
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            reason = str(error).removeprefix(f"{path}: ")
            unreadable.append(Unreadable(shown.as_posix(), reason))
            if warn:
                print(f"warning: {shown}: {reason}; left out of the tables", file=sys.stderr)
    return found, unreadable
