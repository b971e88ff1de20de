"""Run records: one JSON file per run (task, profile, model, configuration, seed), the data
behind every table.

A record is one typed structure, `RunRecord`, made in one place (`run_record`) for a run that
succeeded, failed or was interrupted: the notebook hands over its `Outcome`, the runner adds the
facts of the run (`Inputs`: what the run was made from, each part hashed). Reading validates
(`read_records`): a file that is cut short or is not a record is named in a one-line warning and
listed as unreadable, never taken for a result and never silently dropped.

What a run was made from is `kluebook.recording.fingerprints`; where it ran,
`kluebook.recording.provenance`.
"""

import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_json, write_json
from kluebook.common.paths import RESULTS, ROOT
from kluebook.methods.registry import DEFAULT_METHOD, method_named
from kluebook.recording.fingerprints import Inputs
from kluebook.recording.provenance import git_commit, portable_parameters

RECORD_SCHEMA = 2


def _known_method(name: str) -> str:
    try:
        method_named(name)
    except KluebookError as error:
        raise ValueError(str(error)) from None
    return name


# A method's name (`kluebook.methods`), one that is registered.
MethodName = Annotated[str, AfterValidator(_known_method)]
# What a notebook leaves in its output folder for the runner to turn into the record.
OUTCOME_FILE = "outcome.json"
PREDICTIONS_FILE = "predictions.jsonl"


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


class Baseline(BaseModel):
    """A trivial predictor on a prompted run's items: the answer it always gives, its metrics."""

    model_config = ConfigDict(extra="forbid")

    answer: str
    metrics: dict[str, float | None]


class Usage(BaseModel):
    """What answering a prompted run asked of its model (`kluebook.prompting.answering.Usage`):
    counts, the same for the same run; its wall time is the outcome's, with the other
    measurements."""

    model_config = ConfigDict(extra="forbid")

    requests: int
    cache_hits: int  # requests answered from the server backend's response cache
    prompt_tokens: int
    completion_tokens: int  # generated, or in rank mode scored as an answer
    uncounted: int = 0  # requests whose tokens the server did not report (not in the sums)
    # Prompt tokens that every prompt of the run shares, run once and reused for the others
    # (in `prompt_tokens` once; absent from earlier records, which ran them for every prompt).
    reused_prompt_tokens: int = 0


class ReliabilityBin(BaseModel):
    """One equal-width confidence bin: its items, their mean confidence and accuracy."""

    model_config = ConfigDict(extra="forbid")

    count: int
    confidence: float | None = None  # None in an empty bin
    accuracy: float | None = None


class Calibration(BaseModel):
    """How a ranked run's choice probabilities match its accuracy
    (`kluebook.prompting.calibration`)."""

    model_config = ConfigDict(extra="forbid")

    ece: float  # expected calibration error over the bins (top-label confidence)
    brier: float  # multi-class Brier score, the mean over the items
    bins: list[ReliabilityBin]


class Correction(BaseModel):
    """A correction of a ranked run (`kluebook.prompting.corrections`): the official metrics
    and calibration of its corrected ranking, beside the run's own, and what it measured (the
    content-free prior, or each choice's log-likelihood after the answer prefix alone)."""

    model_config = ConfigDict(extra="forbid")

    metrics: dict[str, float | None]
    calibration: Calibration
    measured: dict[str, float]
    usage: Usage | None = None  # the requests measuring it made (absent from earlier records)


class Prompted(BaseModel):
    """How a prompted run asked its model (`kluebook.prompting`) and what it could not read."""

    model_config = ConfigDict(extra="forbid")

    shots: int  # demonstrations before every query, drawn from train
    demonstration_seed: int  # the seed of that draw
    mode: Literal["rank", "generate"]
    template: str = "standard"  # its template's name (earlier records: the one template)
    template_digest: str  # SHA-256 of that template's file
    cut_reasoning: bool = True  # a reasoning trace was cut before answers were read
    unparsable: int  # answers the task's parser could not read, scored as wrong
    # Generated answers that read but are not grounded in their item (absent from earlier
    # records, and from rank-mode runs, whose answers are their choices).
    ungrounded: int | None = None
    backend: dict[str, Any]  # the backend's provenance, no path of this machine
    first_prompt: str  # the first dev item's prompt as the model was given it
    first_answer: str  # its raw answer
    first_parsed: dict[str, Any]  # its prediction line
    # Rank mode only: how the choices were ranked (the template's `rank_normalisation`), and
    # the requests whose whole text's tokens crossed the prompt's end.
    rank_normalisation: Literal["none", "per_character"] | None = None
    boundary_crossings: int | None = None
    # Degenerate answers (`kluebook.prompting.degenerate`; absent from earlier records): the most
    # frequent answer and its share, the share the parser could not read, the constant and
    # majority predictors on the same items, and a digest of the answers.
    top_answer: str | None = None
    top_answer_share: float | None = None
    fallback_share: float | None = None
    baselines: dict[str, Baseline] | None = None
    answers_digest: str | None = None
    # Rank mode only (absent from earlier records): the calibration of the run's ranking, and
    # the template's corrections, each beside the uncorrected metrics, never replacing them.
    calibration: Calibration | None = None
    corrections: dict[str, Correction] | None = None
    usage: Usage | None = None  # absent from records made before it was counted


class Errata(BaseModel):
    """The errata a run was scored with (`kluebook.errata`): the manifest's version, the data
    errata applied to its items (a run with `--set errata=<version>`), and each erratum's
    corrected values of the official metrics it moves (none where it does not apply)."""

    model_config = ConfigDict(extra="forbid")

    version: str
    applied: list[str] = []
    corrected: dict[str, dict[str, float | None]] = {}  # erratum id: {metric key: value}


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
    # A prompted run's answering step: its wall time, and the tokens of its `usage` per second.
    answering_wall_time_s: float | None = None
    answering_tokens_per_second: float | None = None
    peak_memory_mb: float | None = None
    peak_gpu_memory_mb: float | None = None
    intervals: dict[str, Interval] | None = None  # bootstrap intervals of the metrics
    bootstrap: Bootstrap | None = None
    prompted: Prompted | None = None  # a prompted run's prompting
    errata: Errata | None = None  # absent from records made before the errata manifest


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
    method: MethodName = DEFAULT_METHOD
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
        """What names the dev set the run scored: its data's checksum and its dev limit (None
        for every item, whether the limit was left out or set to 0)."""
        checksum = self.outcome.data_checksum if self.outcome else None
        return checksum, self.parameters.get("dev_limit") or None

    @property
    def is_default_config(self) -> bool:
        """Whether the run used its profile's recipe (no sweep label, no --set)."""
        return self.config == DEFAULT_CONFIG

    def as_dict(self) -> dict:
        """The record as its file holds it: the facts, then the outcome's fields, the GPUs
        among the facts, None left out, and the method only where it is `named_in_record` (a
        fine-tuned run's file is as records have always been)."""
        flat = self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"outcome"})
        if not method_named(self.method).named_in_record:
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
    `failure`: the one-line error and the traceback, as `redaction.describe_error` wrote them.

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


class RecordsFound(NamedTuple):
    """What `read_records` found under results/."""

    records: list[RunRecord]
    unreadable: list[Unreadable]  # the files that are not readable records


def read_records(results: Path = RESULTS, warn=True) -> RecordsFound:
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
    return RecordsFound(found, unreadable)
