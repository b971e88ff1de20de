"""The submitted rows of the site: each submission (its metadata and its derived record, never a
number typed in) as a row of the KLUE table's block of its own, with its page's address and its
flags: a declared use of KLUE dev data, and each number above every published dev number.

`submitted_rows(board)` is the whole interface: `board` is the list of (metadata, record) pairs
of the submissions shown (`committed_board` reads them from the committed derived records)."""

from dataclasses import dataclass, field
from pathlib import Path

from kluebook.common.paths import GENERATED, ROOT
from kluebook.recording.records import Interval
from kluebook.results.aggregation import Cell, Row, published_rows, published_scores
from kluebook.submissions.derived import DerivedRecord, read_record, record_path
from kluebook.submissions.schema import METADATA, Submission, read_submission
from kluebook.tasks import all_tasks

# A submission's metadata and its derived record.
Entry = tuple[Submission, DerivedRecord]
# Where the submission pages are (docnames), and the submissions of a checkout.
SUBMISSION_PAGES = f"{GENERATED.relative_to(ROOT).as_posix()}/submissions"
SUBMISSIONS = ROOT / "submissions"
# What a submitted row says of its numbers, beside its name.
RECOMPUTED = "recomputed from predictions"


def parameters_shown(count: int) -> str:
    """A submission's parameter count: in millions from a million, else as it is (a baseline's
    few numbers)."""
    return f"{count / 1e6:.0f}M params" if count >= 1e6 else f"{count:,} params"


def submission_page(slug: str) -> str:
    """The docname of a submission's page (a slug is of safe characters: `files.SLUG`)."""
    return f"{SUBMISSION_PAGES}/{slug}"


@dataclass
class SubmittedRow(Row):
    """A submission's row: its numbers (official metrics with their intervals), its page, its
    metadata and the cells above every published dev number."""

    page: str = ""
    submission: Submission | None = None
    record: DerivedRecord | None = None
    above_dev: set[tuple[str, str]] = field(default_factory=set)

    @property
    def dev_data_used(self) -> bool:
        return bool(self.submission and self.submission.dev_data_used)


def published_dev_best() -> dict[tuple[str, str], float]:
    """The highest published dev number of each (task, metric): the KLUE README's first table."""
    best: dict[tuple[str, str], float] = {}
    for row in published_rows(published_scores("original")):
        for key, cell in row.cells.items():
            best[key] = max(best.get(key, cell.mean), cell.mean)
    return best


def submitted_rows(board: list[Entry]) -> list[SubmittedRow]:
    """One row per submission, by slug: each task metric its record holds (its official value
    and bootstrap interval), the tasks it has not left out."""
    tasks, best = all_tasks(), published_dev_best()
    rows = []
    for submission, record in sorted(board, key=lambda entry: entry[1].slug):
        cells = {}
        for name, scores in record.tasks.items():
            if name not in tasks:
                continue
            for metric in tasks[name].metrics:
                value = scores.official.get(metric.key)
                if value is None:
                    continue
                found = scores.intervals.get(metric.key)
                interval = Interval(low=found.low, high=found.high) if found else None
                cells[name, metric.key] = Cell([value], interval=interval)
        rows.append(
            SubmittedRow(
                label=submission.model,
                kind="submitted",
                size="",
                split="dev",
                cells=cells,
                model=record.slug,
                profile="submitted",
                data_source="official",
                source=record.slug,
                page=submission_page(record.slug),
                submission=submission,
                record=record,
                above_dev={
                    key for key, cell in cells.items() if key in best and cell.mean > best[key]
                },
            )
        )
    return rows


def committed_board(folder: Path = SUBMISSIONS) -> list[Entry]:
    """The submissions of `folder` that have a derived record, as committed: each folder's
    metadata with its record (a folder whose metadata does not read, or that has no record yet,
    is left out: `kluebook submissions check` says why)."""
    board = []
    for path in sorted(folder.glob(f"*/{METADATA}")) if folder.is_dir() else []:
        submission, problems = read_submission(path)
        record = record_path(path.parent)
        if submission is not None and not problems and record.is_file():
            board.append((submission, read_record(record)))
    return board
