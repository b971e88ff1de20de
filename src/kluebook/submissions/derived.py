"""A submission rescored: the derived record of its numbers, never typed in.

For each task, the official metrics of its predictions (the same scoring code a run uses), the
bootstrap intervals and the errata's corrected values, with the SHA-256 of the predictions file
and of the gold file scored against, kluebook's version and the errata's. A task is rescored
only when one of those inputs changes; `verify` re-derives every number and names each cell
that differs from the record. Records are written atomically and validated on read.

Each task's scores carry the day they were derived (`verified_on`, UTC): kept, as the scores
are, while the task's inputs are unchanged, so rebuilding one commit writes the same bytes; and
where the dev files are absent a committed record says which gold (by checksum) and which day
its numbers were verified against.
"""

from __future__ import annotations

import datetime
import json
import math
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, ValidationError

from kluebook import __version__
from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_text_atomic
from kluebook.data.loading import file_sha256
from kluebook.errata.corrections import corrected_values
from kluebook.errata.manifest import manifest
from kluebook.scoring.bootstrap import run_intervals
from kluebook.scoring.predictions import score_predictions
from kluebook.submissions.check import GoldFile, check_submission
from kluebook.submissions.files import DEFAULT_LIMITS, Limits, prediction_lines
from kluebook.submissions.schema import METADATA
from kluebook.tasks import Task, get_task, task_module

RECORD_FORMAT = 1
RECORDS_FOLDER = "_derived"  # beside the submissions; not a slug (a slug starts with a-z0-9)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Interval(_Strict):
    low: float
    high: float


class TaskScores(_Strict):
    """One task's numbers and the inputs they were derived from."""

    predictions_file: str
    predictions_sha256: str
    gold_file: str  # its path in the official layout
    gold_sha256: str
    gold_official: bool  # byte-identical to the pinned official file (else a reduced copy)
    kluebook_version: str
    errata_version: str
    official: dict[str, float | None]
    intervals: dict[str, Interval]
    bootstrap: dict[str, int | str]
    corrected: dict[str, dict[str, float | None]]
    verified_on: datetime.date  # the day (UTC) these numbers were derived from these inputs


class DerivedRecord(_Strict):
    """A submission's derived record."""

    format: Literal[1]
    slug: str
    metadata_sha256: str
    tasks: dict[str, TaskScores]


def record_path(folder: Path) -> Path:
    """Where the derived record of the submission in `folder` is kept."""
    return folder.parent / RECORDS_FOLDER / f"{folder.name}.json"


def read_record(path: Path) -> DerivedRecord:
    """A derived record, validated; a one-line error if it is not one."""
    try:
        return DerivedRecord.model_validate_json(path.read_bytes())
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise KluebookError(
            f"{path.name}: not a derived record ({where}: {first['msg']})"
        ) from error
    except OSError as error:
        raise KluebookError(f"cannot read {path.name}: {error.strerror}") from error


def write_record(path: Path, record: DerivedRecord) -> None:
    text = json.dumps(record.model_dump(mode="json"), ensure_ascii=False, indent=2, sort_keys=True)
    write_text_atomic(path, text + "\n")


def _defined(values: dict) -> dict:
    """NaN (an undefined metric) as None, as JSON can hold it."""
    return {
        key: None if value is None or (isinstance(value, float) and math.isnan(value)) else value
        for key, value in values.items()
    }


def _today() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date()


def score_task(
    task: Task, path: Path, gold: GoldFile, limits: Limits = DEFAULT_LIMITS
) -> TaskScores:
    """One predictions file scored by the official code, with intervals and corrections."""
    records = task_module(task).read_official(gold.path)
    rows = [row for _, row in prediction_lines(path, limits)]
    metrics = _defined(score_predictions(task, records, rows))
    outcome = run_intervals(task, records, rows, metrics)
    corrected = corrected_values(
        task, records, rows, metrics, gold.sha256 if gold.official else None
    )
    return TaskScores(
        predictions_file=path.name,
        predictions_sha256=file_sha256(path),
        gold_file=gold.relative,
        gold_sha256=gold.sha256,
        gold_official=gold.official,
        kluebook_version=__version__,
        errata_version=manifest().version,
        official=metrics,
        intervals={k: Interval(**v) for k, v in outcome["intervals"].items()},
        bootstrap=outcome["bootstrap"],
        corrected={erratum: _defined(values) for erratum, values in corrected.items()},
        verified_on=_today(),
    )


def recorded_inputs(scores: TaskScores) -> tuple:
    """What a task's scores were derived from: its predictions file's name and checksum, the
    gold's checksum, kluebook's version and the errata's."""
    return (
        scores.predictions_file,
        scores.predictions_sha256,
        scores.gold_sha256,
        scores.kluebook_version,
        scores.errata_version,
    )


def current_inputs(path: Path, gold: GoldFile) -> tuple:
    """`recorded_inputs` as they are now, for the predictions file `path` against `gold`."""
    return (path.name, file_sha256(path), gold.sha256, __version__, manifest().version)


def derive(
    folder: Path,
    data_dir: Path,
    previous: DerivedRecord | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[DerivedRecord, list[str]]:
    """The derived record of a submission that passes its check, and the tasks rescored: a task
    of `previous` whose inputs (predictions, gold, versions) are unchanged is kept as it is."""
    report = check_submission(folder, data_dir, limits)
    if report.all_problems:
        raise KluebookError(
            f"{folder.name} does not pass its check ({len(report.all_problems)} problems; "
            f"first: {report.all_problems[0]}): run `kluebook submissions check`"
        )
    tasks, rescored = {}, []
    for checked in report.tasks:
        path = folder / checked.file
        old = previous.tasks.get(checked.task) if previous else None
        if old is not None and recorded_inputs(old) == current_inputs(path, checked.gold):
            tasks[checked.task] = old
            continue
        tasks[checked.task] = score_task(get_task(checked.task), path, checked.gold, limits)
        rescored.append(checked.task)
    record = DerivedRecord(
        format=RECORD_FORMAT,
        slug=folder.name,
        metadata_sha256=file_sha256(folder / METADATA),
        tasks=tasks,
    )
    return record, rescored


def differences(recorded: DerivedRecord, derived: DerivedRecord) -> list[str]:
    """Each cell where a record differs from the numbers derived anew, named by its path (the
    day each task was derived is no number of it, and not compared)."""
    old, new = (
        record.model_dump(mode="json", exclude={"tasks": {"__all__": {"verified_on"}}})
        for record in (recorded, derived)
    )
    found: list[str] = []
    _compare(old, new, recorded.slug, found)
    return found


def _compare(old, new, where: str, found: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            if key not in new:
                found.append(f"{where}.{key}: in the record, not derived")
            elif key not in old:
                found.append(f"{where}.{key}: derived, missing from the record")
            else:
                _compare(old[key], new[key], f"{where}.{key}", found)
    elif old != new:
        found.append(f"{where}: recorded {old!r}, derived {new!r}")


# The cells that name the gold file a task was scored against.
GOLD_IDENTITY = ("gold_file", "gold_sha256", "gold_official")


class Verification(NamedTuple):
    """What `verify` found: the cells that differ, and the tasks whose record was derived
    against a reduced copy of the dev file and whose every number the official file gives."""

    differences: list[str]
    official_now: list[str]


def verify(folder: Path, data_dir: Path, limits: Limits = DEFAULT_LIMITS) -> Verification:
    """Every number of the submission's record derived anew from its predictions and compared:
    one line per cell that differs (none: the record holds). A task derived against a reduced
    copy of its dev file (same items and labels, fewer fields), where the data folder now holds
    the official file, is compared on its numbers: the gold it names is the copy's, and that
    is said in a line of its own (the board rescores it against the official file)."""
    recorded = read_record(record_path(folder))
    derived, _ = derive(folder, data_dir, None, limits)
    found = differences(recorded, derived)
    upgraded = [
        task
        for task, scores in recorded.tasks.items()
        if not scores.gold_official and task in derived.tasks and derived.tasks[task].gold_official
    ]
    cells = {f"{recorded.slug}.tasks.{task}.{key}" for task in upgraded for key in GOLD_IDENTITY}
    kept = [line for line in found if line.split(":", 1)[0] not in cells]
    notes = []
    for task in upgraded:
        if any(line.startswith(f"{recorded.slug}.tasks.{task}.") for line in kept):
            continue
        was, now = recorded.tasks[task], derived.tasks[task]
        notes.append(
            f"{recorded.slug}.tasks.{task}: derived against a reduced copy of the dev file "
            f"({was.gold_file}, SHA-256 {was.gold_sha256[:16]}…); every number equal from the "
            f"official file here ({now.gold_file}, SHA-256 {now.gold_sha256[:16]}…)"
        )
    return Verification(kept, notes)
