"""`kluebook submissions check`: a submission verified before anything is published, writing
nothing. The metadata against the schema; each predictions file, streamed, against the official
v1.1 dev file of its task (found in the data folder and identified by its SHA-256): every gold
guid exactly once, no other guid, values of the right type and range. Predictions made for the
Hugging Face `klue/klue` copy (class ids in its label order, guids from positions where it has
none) are recognised and named as such. Each problem is one line.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.data.fetch import manifest, mismatch
from kluebook.data.loading import file_sha256
from kluebook.scoring.predictions import index_predictions, records_by_key
from kluebook.submissions.files import (
    DEFAULT_LIMITS,
    PREDICTIONS_SUFFIXES,
    Limits,
    prediction_lines,
    submission_entries,
)
from kluebook.submissions.schema import METADATA, Submission, read_submission
from kluebook.tasks import Task, all_tasks, task_module
from kluebook.tasks.interface import HUB_COPY

SHOWN = 5  # guids listed per problem
OTHER_FILES = ("README.md",)
HUB_POSITION_GUID = re.compile(r"^[a-z]+-hub-\d+$")


@dataclass(frozen=True)
class GoldFile:
    """The dev file a task's predictions are checked and scored against."""

    path: Path
    relative: str  # its path in the official layout
    sha256: str
    official: bool  # byte-identical to the pinned official file (else a reduced copy)


@dataclass
class TaskCheck:
    """What was found for one predictions file."""

    task: str
    file: str
    gold: GoldFile | None = None
    lines: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class CheckReport:
    """A submission's check: its metadata, each task's file and every problem line."""

    slug: str
    submission: Submission | None
    tasks: list[TaskCheck]
    problems: list[str]

    @property
    def all_problems(self) -> list[str]:
        return self.problems + [line for task in self.tasks for line in task.problems]


def gold_file(task: Task, data_dir: Path, split: str = "dev") -> GoldFile:
    """The task's official v1.1 file of `split` in `data_dir`, checked against its pins; where
    only a reduced copy (`*.partial.json`, fewer fields, same items) is there, that copy,
    marked as such."""
    relative = task.files[split]
    path = data_dir / relative
    if path.is_file():
        pins = manifest()["files"].get(relative) or {}
        wrong = mismatch(path, pins) if pins else "no pinned checksum"
        if wrong:
            raise KluebookError(f"{relative} in the data folder is not the official file: {wrong}")
        return GoldFile(path, relative, file_sha256(path), official=True)
    reduced = relative.replace(".json", ".partial.json")
    if reduced != relative and (data_dir / reduced).is_file():
        return GoldFile(data_dir / reduced, reduced, file_sha256(data_dir / reduced), False)
    raise KluebookError(
        f"no {task.name} {split} file ({relative}) in the data folder: run `kluebook data fetch` "
        "or set KLUEBOOK_DATA_DIR"
    )


def _show(key: Hashable) -> str:
    text = " turn ".join(str(part) for part in key) if isinstance(key, tuple) else str(key)
    return text if len(text) <= 80 else text[:80] + "…"


class Tally:
    """How many items have one problem, and the first SHOWN of them (memory stays small
    however many lines a file has)."""

    def __init__(self) -> None:
        self.count = 0
        self.first: list = []

    def add(self, item) -> None:
        self.count += 1
        if len(self.first) < SHOWN:
            self.first.append(item)


def listed(keys: list, count: int | None = None) -> str:
    """The first SHOWN keys, and how many more."""
    count = len(keys) if count is None else count
    shown = ", ".join(_show(key) for key in keys[:SHOWN])
    return shown + (f" and {count - SHOWN} more" if count > SHOWN else "")


def _hub_line(file: str, kind: str, numbered: str, count: int, examples: list) -> str:
    return (
        f"{file}: {count} lines give {kind}s, not names: predictions for {HUB_COPY} (data v1) "
        f"are not read as v1.1 names ({numbered}); write the names "
        f"(first: {listed(examples, count)})"
    )


def check_predictions(
    task: Task, path: Path, gold: GoldFile, limits: Limits = DEFAULT_LIMITS
) -> TaskCheck:
    """One predictions file against its task's dev file, streamed: guids and values."""
    result = TaskCheck(task.name, path.name, gold)
    records = task_module(task).read_official(gold.path)
    module = task_module(task)
    by_key = records_by_key(task, records)
    seen: set = set()
    duplicates, unknown, hub_positions = Tally(), Tally(), Tally()
    findings: dict[str, Tally] = defaultdict(Tally)
    hub_ids: dict[str, str] = {}  # kind of problem -> how the hub copy numbers the values
    kept = []  # rows scored at the end, for a task folder without `check_line` (not streamed)
    value_check = module.check_line
    try:
        for number, row in prediction_lines(path, limits):
            result.lines += 1
            try:
                key = module.prediction_key(row)
                hash(key)
            except (KeyError, TypeError):
                findings["line without a guid"].add(f"line {number}")
                continue
            if key in seen:
                duplicates.add(key)
                continue
            if key not in by_key:
                hub = isinstance(key, int) or HUB_POSITION_GUID.fullmatch(str(key))
                (hub_positions if hub else unknown).add(key)
                continue
            seen.add(key)
            if value_check is None:
                kept.append(row)
                continue
            found = value_check(by_key[key], row)
            if found:
                findings[found.kind].add(f"{_show(key)} {found.found}".strip())
                if found.hub_ids:
                    hub_ids[found.kind] = found.hub_ids
    except KluebookError as error:
        result.problems.append(str(error))
        return result
    file = path.name
    missing = Tally()
    for key in by_key:
        if key not in seen:
            missing.add(key)
    if hub_positions.count:
        result.problems.append(
            f"{file}: {hub_positions.count} guids are positions in {HUB_COPY} split, which has no "
            f"guids for {task.name}: key each line by the official v1.1 guid "
            f"({listed(hub_positions.first, hub_positions.count)})"
        )
    for what, tally in (("missing", missing), ("duplicate", duplicates), ("unknown", unknown)):
        if tally.count:
            result.problems.append(
                f"{file}: {tally.count} {what} guids: {listed(tally.first, tally.count)}"
            )
    for kind, tally in findings.items():
        if kind in hub_ids:
            result.problems.append(_hub_line(file, kind, hub_ids[kind], tally.count, tally.first))
        else:
            result.problems.append(
                f"{file}: {tally.count} lines with a {kind}: {listed(tally.first, tally.count)}"
            )
    if value_check is None and not result.problems:
        try:  # the official scorer's own checks
            module.score(records, index_predictions(task, records, kept), {})
        except KluebookError as error:
            result.problems.append(f"{file}: {error}")
    return result


def predictions_files(files: list[Path]) -> tuple[dict[str, Path], list[str]]:
    """{task: its predictions file} of a submission's files, and a line for each file that is
    no task's predictions (or a second file of one task)."""
    tasks = all_tasks()
    found: dict[str, Path] = {}
    problems = []
    for path in files:
        if path.name == METADATA or path.name in OTHER_FILES:
            continue
        stem = next(
            (
                path.name.removesuffix(s)
                for s in reversed(PREDICTIONS_SUFFIXES)
                if path.name.endswith(s)
            ),
            None,
        )
        if stem not in tasks:
            problems.append(
                f"{path.name}: not a predictions file (expected <task>.jsonl or <task>.jsonl.gz "
                f"for a task of {', '.join(tasks)}, or {METADATA}, {', '.join(OTHER_FILES)})"
            )
        elif stem in found:
            problems.append(f"{path.name}: a second predictions file for {stem}")
        else:
            found[stem] = path
    return found, problems


def check_submission(folder: Path, data_dir: Path, limits: Limits = DEFAULT_LIMITS) -> CheckReport:
    """Every check of one submission folder; nothing is written."""
    files, problems = submission_entries(folder)
    report = CheckReport(folder.name, None, [], problems)
    if not folder.is_dir() or folder.is_symlink():
        return report
    if (folder / METADATA) in files:
        report.submission, lines = read_submission(folder / METADATA)
        problems += lines
    elif not (folder / METADATA).is_symlink():
        problems.append(f"{METADATA}: missing")
    chosen, lines = predictions_files(files)
    problems += lines
    if not chosen and files:
        problems.append("no predictions file (<task>.jsonl or <task>.jsonl.gz)")
    tasks = all_tasks()
    for name, path in sorted(chosen.items(), key=lambda item: tasks[item[0]].order):
        try:
            gold = gold_file(tasks[name], data_dir)
        except KluebookError as error:
            report.tasks.append(TaskCheck(name, path.name, problems=[f"{path.name}: {error}"]))
            continue
        report.tasks.append(check_predictions(tasks[name], path, gold, limits))
    return report
