"""The submitted rows of the site: each submission (its metadata and its derived record, never a
number typed in) as a row of the KLUE table's block of its own, with its page's address and its
flags: a declared use of KLUE dev data, and each number above every published dev number.

`submitted_rows(entries)` is the whole interface: `entries` are the board's
(`kluebook.submissions.board.load_board`), each a submission's metadata with its derived record."""

from dataclasses import dataclass, field

from kluebook.common.paths import GENERATED, ROOT
from kluebook.recording.records import Interval
from kluebook.results.aggregation import Cell, Row, published_rows, published_scores
from kluebook.submissions.board import BoardEntry
from kluebook.submissions.derived import DerivedRecord
from kluebook.submissions.schema import Submission
from kluebook.tasks import all_tasks

# Where the submission pages are (docnames).
SUBMISSION_PAGES = f"{GENERATED.relative_to(ROOT).as_posix()}/submissions"
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


def submitted_rows(entries: list[BoardEntry]) -> list[SubmittedRow]:
    """One row per submission, by slug: each task metric its record holds (its official value
    and bootstrap interval), the tasks it has not left out."""
    tasks, best = all_tasks(), published_dev_best()
    rows = []
    for entry in sorted(entries, key=lambda entry: entry.slug):
        submission, record = entry.submission, entry.record
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
