"""The board: every submission under `submissions/`, each with its derived record.

Where the official dev files of a submission's tasks are in the data folder, the submission is
rescored by the official code, but only where one of its inputs changed (the checksums of its
predictions, its metadata and the gold, kluebook's and the errata's versions): an unchanged
board is read back, never rescored. Its record is then written atomically, and only if it
changed. Where they are absent (the offline default build), the committed record is shown as
it is, marked with the gold checksum and the day it was verified against, once the checksums of
the submission's files show that the record describes them. A submission that fails its check,
or whose committed record does not describe its files, is refused in one line and never enters
the board.
"""

from __future__ import annotations

import datetime
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kluebook.common.errors import KluebookError
from kluebook.data.loading import file_sha256
from kluebook.submissions.check import GoldFile, gold_file, predictions_files
from kluebook.submissions.derived import (
    RECORDS_FOLDER,
    DerivedRecord,
    current_inputs,
    derive,
    read_record,
    record_path,
    recorded_inputs,
    write_record,
)
from kluebook.submissions.files import DEFAULT_LIMITS, Limits, submission_entries
from kluebook.submissions.schema import METADATA, Submission, read_submission
from kluebook.tasks import all_tasks

# How an entry's numbers came to be: rescored now (some task's inputs changed); derived
# before from the same inputs, checked by their checksums against the dev files here; or
# shown as committed, the dev files being absent.
State = Literal["rescored", "unchanged", "committed"]


@dataclass(frozen=True)
class Verified:
    """What one task's numbers were verified against: the gold file by its checksum, the day."""

    gold_file: str
    gold_sha256: str
    gold_official: bool
    on: datetime.date


@dataclass(frozen=True)
class BoardEntry:
    """One submission on the board: its metadata, its derived record, and how it got there."""

    slug: str
    submission: Submission
    record: DerivedRecord
    state: State
    rescored: tuple[str, ...] = ()  # the tasks rescored by this load

    @property
    def verified(self) -> dict[str, Verified]:
        """Each task's gold checksum and the day its numbers were derived against it."""
        return {
            task: Verified(s.gold_file, s.gold_sha256, s.gold_official, s.verified_on)
            for task, s in self.record.tasks.items()
        }


@dataclass(frozen=True)
class Refused:
    """A submission left out of the board, and why (one line)."""

    slug: str
    reason: str

    @property
    def line(self) -> str:
        return f"{self.slug}: {self.reason}; left out of the board"


@dataclass
class Board:
    """What `load_board` found: the entries, the submissions refused, the records it wrote."""

    entries: list[BoardEntry] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)


class _GoldFiles:
    """Each task's dev file in the data folder, looked up (and its checksum taken) once."""

    def __init__(self, data_dir: Path | None):
        self.data_dir = data_dir
        self.found: dict[str, GoldFile | KluebookError] = {}

    def get(self, task: str) -> GoldFile | KluebookError:
        if task not in self.found:
            try:
                if self.data_dir is None:
                    raise KluebookError("no data folder")
                self.found[task] = gold_file(all_tasks()[task], self.data_dir)
            except KluebookError as error:
                self.found[task] = error
        return self.found[task]


def load_board(
    root: Path, data_dir: Path | None, limits: Limits = DEFAULT_LIMITS, warn: bool = True
) -> Board:
    """Every submission folder under `root` (`submissions/`), rescored where its dev files are
    in `data_dir` and an input changed, else shown as committed; each one refused named in a
    one-line warning on stderr when `warn`."""
    board = Board()
    golds = _GoldFiles(data_dir)
    folders = sorted(root.iterdir()) if root.is_dir() else []
    for folder in folders:
        if folder.name == RECORDS_FOLDER or folder.name.startswith("."):
            continue
        if folder.is_file() and not folder.is_symlink():
            continue  # a README beside the submissions
        try:
            board.entries.append(_entry(folder, golds, limits, board.written))
        except KluebookError as error:
            refused = Refused(folder.name, str(error))
            board.refused.append(refused)
            if warn:
                print(f"warning: submission {refused.line}", file=sys.stderr)
    return board


def _first(problems: list[str]) -> str:
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"fails its check: {problems[0]}{more}"


def _entry(folder: Path, golds: _GoldFiles, limits: Limits, written: list[Path]) -> BoardEntry:
    """One submission's entry (rescoring what changed), or a KluebookError saying why not."""
    files, problems = submission_entries(folder)
    submission, lines = (
        read_submission(folder / METADATA) if folder / METADATA in files else (None, [])
    )
    chosen, more = predictions_files(files)
    order = all_tasks()
    chosen = dict(sorted(chosen.items(), key=lambda item: order[item[0]].order))
    problems += lines + more
    if submission is None and not lines:
        problems.append(f"{METADATA}: missing")
    if not chosen and not problems:
        problems.append("no predictions file (<task>.jsonl or <task>.jsonl.gz)")
    if problems:
        raise KluebookError(_first(problems))
    target = record_path(folder)
    previous, unreadable = None, None
    if target.is_file():
        try:
            previous = read_record(target)
        except KluebookError as error:
            unreadable = str(error)
    found = {task: golds.get(task) for task in chosen}
    absent = [error for error in found.values() if isinstance(error, KluebookError)]
    if absent:  # shown as committed, if its record describes these files
        stale = _stale(folder, chosen, previous) if previous else unreadable or "no record"
        if stale:
            raise KluebookError(
                f"its committed record does not hold ({stale}) and it cannot be rescored "
                f"here ({absent[0]})"
            )
        return BoardEntry(folder.name, submission, previous, "committed")
    if previous is not None and not _stale(folder, chosen, previous, found):
        return BoardEntry(folder.name, submission, previous, "unchanged")
    try:
        record, rescored = derive(folder, golds.data_dir, previous, limits)
    except KluebookError as error:
        raise KluebookError(str(error).removeprefix(f"{folder.name} ")) from error
    if record != previous:
        write_record(target, record)
        written.append(target)
    state: State = "rescored" if rescored else "unchanged"  # else only the metadata changed
    return BoardEntry(folder.name, submission, record, state, tuple(rescored))


def _stale(
    folder: Path,
    chosen: dict[str, Path],
    record: DerivedRecord,
    golds: dict[str, GoldFile] | None = None,
) -> str | None:
    """What in the submission's files (and the gold files, where given) differs from the
    inputs its record was derived from; None if nothing does."""
    if record.slug != folder.name:
        return f"the record is {record.slug}'s"
    if record.metadata_sha256 != file_sha256(folder / METADATA):
        return f"{METADATA} changed since"
    if set(record.tasks) != set(chosen):
        return f"it scores {', '.join(record.tasks)}, the predictions are of {', '.join(chosen)}"
    for task, path in chosen.items():
        scores = record.tasks[task]
        if golds is not None:
            if recorded_inputs(scores) != current_inputs(path, golds[task]):
                return f"{task}'s inputs changed since"
        elif (scores.predictions_file, scores.predictions_sha256) != (
            path.name,
            file_sha256(path),
        ):
            return f"{path.name} changed since"
    return None
