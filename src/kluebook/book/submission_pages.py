"""A page per submission (MyST Markdown, `book/_generated/submissions/<slug>.md`): its metadata
(the link a link only where it is a web address), every task's official and corrected numbers
with their intervals, the checksums of the predictions and gold they were derived from, a paired
comparison with the strongest released-checkpoint run of each task the book has, and the item
browser of its predictions (with their gold where the official dev file is here).

The item browsers of a page hold at most `PAGE_ITEMS` items together, shared by its tasks: of
each task its wrong items first, then a sample of the others spread over the dev set, and a line
says how many of how many; every item is in the task's downloads beside the page
(`submissions/<slug>/<task>.items.csv` and `.jsonl`), so the page stays within the book's
weight budget however large the dev set.

Everything a submission carries is untrusted: it reaches the page as text, through the templates
(`submission_page.html`, `item_browser.html`, autoescaped) or `myst.text`."""

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from kluebook.book import myst
from kluebook.book.item_browser import browser_html, items_first, spread
from kluebook.book.klue_table import short_name
from kluebook.book.submitted import SubmittedRow, parameters_shown, submitted_rows
from kluebook.book.templating import parts
from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_text_if_changed
from kluebook.common.paths import GENERATED, KLUE_DATA, ROOT, SUBMISSIONS
from kluebook.recording.records import RunRecord
from kluebook.results import compare
from kluebook.results.aggregation import Row
from kluebook.results.items import items_frame, jsonl_text
from kluebook.results.links import ERRATA_PAGE, RESULTS_PAGE, href
from kluebook.results.uncertainty import interval_text
from kluebook.submissions.board import BoardEntry
from kluebook.submissions.check import gold_file
from kluebook.submissions.derived import DerivedRecord, TaskScores
from kluebook.submissions.files import prediction_lines
from kluebook.tasks import Task, all_tasks, task_module

TEMPLATE = "submission_page.html"
# The items a page's item browsers hold together, shared evenly by its tasks.
PAGE_ITEMS = 500
# A task's downloads: every item, by the end of the file's name.
DOWNLOADS = {"items.csv": "CSV", "items.jsonl": "JSON Lines"}


def _number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def number_rows(task: Task, scores: TaskScores, above: set) -> list[tuple]:
    """A task's rows of the numbers table: each metric's official value, its interval, whether
    it is above every published dev number, and the errata's corrected values of it."""
    rows = []
    for metric in task.metrics:
        interval = scores.intervals.get(metric.key)
        corrected = [
            (erratum, _number(values[metric.key]))
            for erratum, values in sorted(scores.corrected.items())
            if metric.key in values
        ]
        rows.append(
            (
                short_name(task),
                metric.label,
                _number(scores.official.get(metric.key)),
                interval_text(interval) if interval else "",
                (task.name, metric.key) in above,
                corrected,
            )
        )
    return rows


def strongest_reference(task: Task, rows: list[Row]) -> Row | None:
    """The strongest released-checkpoint run of `task` the book has: a current, ranked
    (fine-tuned), non-smoke row of a registered checkpoint with a published name, by the task's
    first metric."""
    key = (task.name, task.metrics[0].key)
    found = [
        row
        for row in rows
        if row.kind == "reproduced"
        and row.profile != "smoke"
        and row.published_name
        and row.is_ranked(key)
    ]
    return max(found, key=lambda row: row.cells[key].mean, default=None)


def comparison_html(
    task: Task,
    predictions: list[dict],
    reference: Row | None,
    records: list[RunRecord],
    label: str,
    root: Path = ROOT,
) -> str:
    """The paired comparison of the submission's predictions of `task` (`label`: its model)
    with the reference row's runs on the same dev items (their records, predictions under
    `root`), or one line saying why there is none."""
    if reference is None:
        return (
            f"No released-checkpoint run of {short_name(task)} in this book: no paired "
            "comparison.\n"
        )
    name = reference.config if not reference.is_default_config else reference.model
    try:
        gold, (_, side) = compare.from_records(task, records, name, name, root)
        mine = compare.scored_side(task, label, gold, [predictions])
        found = compare.compare(task, mine, side)
    except KluebookError as error:
        return f"No paired comparison with {myst.code(name)}: {myst.text(error)}.\n"
    labels = {m.key: m.label for m in task.metrics}
    differences = [
        (
            labels[d.metric],
            f"{d.a:.2f}",
            f"{d.b:.2f}",
            f"{d.difference:+.2f}",
            f"[{d.low:+.2f}, {d.high:+.2f}]",
            f"{d.p_value:.3f}" if d.p_value >= 0.001 else "<0.001",
            d.verdict,
        )
        for d in found
    ]
    caption = f"{short_name(task)}: this submission (A) against {name} (B), paired bootstrap"
    return str(parts(TEMPLATE).comparison(caption, differences)) + "\n"


def _gold(
    task: Task, scores: TaskScores, data_dir: Path, golds: dict | None = None
) -> tuple[list[dict], str]:
    """The gold records the task was scored against where the same file is here, else none and
    the one line that says so; `golds` keeps each task's file and records, so a build finds and
    reads them once, not once per submission."""
    golds = {} if golds is None else golds
    if task.name not in golds:
        try:
            golds[task.name] = [gold_file(task, data_dir), None]
        except KluebookError:
            golds[task.name] = [None, None]
    found = golds[task.name]
    if found[0] is None or found[0].sha256 != scores.gold_sha256:
        return [], (
            f"The official {short_name(task)} dev file it was scored against is not here: the "
            "table holds the predictions alone (`kluebook data fetch` adds the texts and gold)."
        )
    if found[1] is None:
        found[1] = task_module(task).read_official(found[0].path)
    return found[1], ""


def items_shown(frame: pd.DataFrame, count: int) -> tuple[pd.DataFrame, str]:
    """At most `count` of a task's items (`frame`): its wrong items first, then a sample of the
    others, spread over the dev set; and the sentence saying which the table holds."""
    total = len(frame)
    if total <= count:
        return frame, f"The table holds all {total:,} items."
    if "correct" not in frame:  # no gold here
        chosen = spread(range(total), count)
        said = f"The table holds {count:,} of the {total:,} items, spread over the dev set."
        return frame.iloc[chosen], said
    wrong = frame["correct"].eq(False).to_numpy()
    first, rest = np.flatnonzero(wrong).tolist(), np.flatnonzero(~wrong).tolist()
    chosen = items_first(first, rest, count)
    if len(first) >= count:
        said = (
            f"The table holds {count:,} of the {total:,} items: {count:,} of the {len(first):,} "
            "it gets wrong, spread over the dev set."
        )
    else:
        said = (
            f"The table holds {count:,} of the {total:,} items: every one of the "
            f"{len(first):,} it gets wrong, then {count - len(first):,} of the others, spread "
            "over the dev set."
        )
    return frame.iloc[chosen], said


def write_downloads(frame: pd.DataFrame, folder: Path, task: Task) -> dict[str, Path]:
    """Write every item of a task (`frame`) into `folder`, as CSV and JSON Lines (a file that
    holds them already is left as it is); return their paths by format."""
    texts = {"items.csv": frame.to_csv(index=False), "items.jsonl": jsonl_text(frame)}
    paths = {name: folder / f"{task.name}.{name}" for name in DOWNLOADS}
    for name, text in texts.items():
        write_text_if_changed(paths[name], text)
    return paths


def _raw(html: str) -> str:
    """HTML as a MyST raw block, fenced by more backticks than any run inside it."""
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", html)), default=0) + 1)
    return f"{fence}{{raw}} html\n{html}\n{fence}\n"


# How the numbers on a page were checked: re-derived in this build from the dev files here, or
# shown as committed (the dev files absent), each task verified against the gold of its
# checksum on the day in its row.
DERIVED_HERE = (
    "Every number was derived anew in this build from the predictions and the dev "
    "files here, by the official code."
)
CHECKED = {
    "rescored": DERIVED_HERE,
    "unchanged": DERIVED_HERE,
    "committed": "The official dev files are not in this build's data folder, so the numbers are "
    "shown as committed: each was verified against the gold file of the checksum in its row, on "
    "the day given there (`kluebook submissions verify` derives them again).",
}


def page_markdown(
    row: SubmittedRow,
    record: DerivedRecord,
    state: str,
    folder: Path,
    rows: list[Row],
    records: list[RunRecord],
    data_dir: Path = KLUE_DATA,
    *,
    out_dir: Path,
    golds: dict | None = None,
) -> str:
    """The page of one submission (`folder`: its files), its downloads written beside it, under
    `out_dir/submissions/<slug>/` (`golds`: the dev files read so far, see `_gold`)."""
    html, tasks = parts(TEMPLATE), all_tasks()
    page = row.page
    mine = [(tasks[name], scores) for name, scores in record.tasks.items() if name in tasks]
    mine.sort(key=lambda pair: list(tasks).index(pair[0].name))
    submission = row.submission
    parameters = parameters_shown(submission.parameters)
    numbers = [n for task, scores in mine for n in number_rows(task, scores, row.above_dev)]
    text = [
        f"(submission-{record.slug})=\n# {myst.text(submission.model)}\n",
        str(html.metadata(submission, parameters, "recomputed", href(page, RESULTS_PAGE))) + "\n",
        "## Numbers\n",
        "Each task's official metrics as the official code computes them from the predictions, "
        "with the 95% bootstrap interval over the dev items, and beside them the value each "
        "applied erratum corrects it to.\n",
        str(html.numbers(numbers, f"The numbers of {submission.model}", href(page, ERRATA_PAGE)))
        + "\n",
        "## Checksums\n",
        "The SHA-256 of every predictions file and of the gold file it was scored against, and "
        f"the versions of kluebook and of its errata that scored it. {CHECKED[state]}\n",
        str(html.checksums([(short_name(t), s) for t, s in mine], "Inputs of each number")) + "\n",
    ]
    comparisons, browsers = [], []
    count = PAGE_ITEMS // max(len(mine), 1)
    for task, scores in mine:
        predictions = [line for _, line in prediction_lines(folder / scores.predictions_file)]
        comparisons += [
            f"### {short_name(task)}\n",
            comparison_html(
                task, predictions, strongest_reference(task, rows), records, submission.model
            ),
        ]
        gold, missing = _gold(task, scores, data_dir, golds)
        frame = items_frame(task, predictions, gold)
        paths = write_downloads(frame, out_dir / "submissions" / record.slug, task)
        links = " · ".join(
            f"{{download}}`{DOWNLOADS[name]} <{record.slug}/{path.name}>`"
            for name, path in paths.items()
        )
        shown, said = items_shown(frame, count)
        caption = (
            f"{len(shown):,} of the {len(frame):,} {short_name(task)} predictions of this "
            "submission"
        )
        browsers += [
            f"### {short_name(task)} predictions\n",
            (missing or "Each item's text, gold, prediction and whether it is right.")
            + f" {said} Every item: {links}.\n",
            _raw(browser_html(shown, f"items-{task.name}", page, caption)),
        ]
    text += ["## Paired comparison with a released checkpoint\n", *comparisons]
    text += ["## Items\n", *browsers]
    return "\n".join(text)


def write_submission_pages(
    board: list[BoardEntry],
    rows: list[Row],
    records: list[RunRecord],
    out_dir: Path = GENERATED,
    folder: Path = SUBMISSIONS,
    data_dir: Path = KLUE_DATA,
    submitted: list[SubmittedRow] | None = None,
) -> list[Path]:
    """Write the page of every submission of `board` (its files in `folder/<slug>`; `submitted`:
    its rows, made here when not given); a page of a submission no longer on the board is
    removed."""
    entries = {entry.slug: entry for entry in board}
    pages, golds = {}, {}
    for row in submitted_rows(board) if submitted is None else submitted:
        path = out_dir / "submissions" / f"{row.source}.md"
        entry = entries[row.source]
        pages[path] = page_markdown(
            row,
            entry.record,
            entry.state,
            folder / row.source,
            rows,
            records,
            data_dir,
            out_dir=out_dir,
            golds=golds,
        )
    for old in (out_dir / "submissions").glob("*"):
        if old.with_suffix(".md") in pages:  # a page, or its downloads' folder
            continue
        if old.is_dir():
            shutil.rmtree(old)
        else:
            old.unlink()
    for path, text in pages.items():
        write_text_if_changed(path, text)
    return list(pages)
