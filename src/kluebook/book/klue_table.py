"""The KLUE-style table as HTML: a row per model, the tasks and their metrics as columns in the
registry's order, in sections of comparable rows, each metric an erratum corrects marked (c, or a
for an alternative statistic beside a misleadingly named one); and
its interactive copy, a block column to filter and columns to sort within the blocks. This module
chooses what the table shows; the template `klue_table.html` (`templating`) writes its HTML."""

import posixpath
import re
from collections import defaultdict
from dataclasses import dataclass

from markupsafe import Markup

from kluebook.book.klue_marks import emphasis
from kluebook.book.klue_notes import metric_notes, model_references, published_tables
from kluebook.book.submitted import RECOMPUTED, SubmittedRow, parameters_shown
from kluebook.book.table_assets import datatable
from kluebook.book.templating import parts
from kluebook.errata.manifest import Erratum, manifest
from kluebook.methods.registry import all_methods, method_named
from kluebook.results.aggregation import Cell, Row
from kluebook.results.links import ITEMS_ANCHOR, RESULTS_PAGE, href, methods_page, task_page
from kluebook.results.uncertainty import cell_title, runner_up_ties
from kluebook.tasks import Metric, Task
from kluebook.training.checkpoints import model_entry

# The KLUE repositories the table's numbers and metrics come from.
KLUE_REPOSITORY = "https://github.com/KLUE-benchmark/KLUE"
KLUE_BASELINE = "https://github.com/KLUE-benchmark/KLUE-baseline"
# The table's HTML (its cells, headers, notes and blocks).
TEMPLATE = "klue_table.html"


def parameters_text(count: int | None) -> str:
    return f"{count / 1e6:.0f}M params" if count else ""


def metrics_anchor(task: Task) -> str:
    """The id of the Metrics section of the task's methods page (set by kluebook.book.pages)."""
    return f"methods-{task.name}-metrics"


def short_name(task: Task) -> str:
    """The task's name as the KLUE tables print it: the acronym in parentheses in its title."""
    found = re.search(r"\(([^)]+)\)\s*$", task.title)
    return found.group(1) if found else task.name.upper()


# The section of the results page with the corrected values (its heading's id).
CORRECTED_ANCHOR = "published-reproduced-corrected"


def correcting_errata(task: Task, metric: Metric) -> list[Erratum]:
    """The applied errata whose corrected value of `metric` runs record: its metric errata, and
    the label errata of its task (a text erratum's number is that of runs on its items)."""
    return [
        e
        for e in manifest().of_task(task.name)
        if e.applied and (e.kind == "label" or metric.key in e.variants)
    ]


def columns(tasks: list[Task]) -> list[tuple[Task, Metric]]:
    """The table's number columns: each task's metrics in its task.yaml's order."""
    return [(task, metric) for task in tasks for metric in task.metrics]


def cell_html(
    row: Row,
    cell: Cell | None,
    mark: str,
    page: str,
    tie: str = "",
    key: tuple[str, str] = ("", ""),
) -> Markup:
    """A number cell (of column `key`); `data-order` is the value an interactive table sorts it
    by. Each seed of a reproduced cell links to the item browser of its run (`ITEMS_ANCHOR` of
    the run page); a submitted cell has its interval and its note."""
    html = parts(TEMPLATE)
    if cell is None:
        return html.missing_cell()
    if row.kind == "published":
        return html.published_cell(cell, mark)
    if row.kind == "submitted":
        return html.submitted_cell(cell, cell_title(cell), _submitted_notes(row, key))
    seeds = [
        (href(page, run, ITEMS_ANCHOR) if run else None, seed, value)
        for (seed, run), value in zip(cell.runs, cell.values, strict=True)
    ]
    # Its bootstrap interval, on hover.
    return html.reproduced_cell(cell, mark, seeds, cell_title(cell), tie, _cell_notes(cell))


# The notes of a reproduced cell, as short marks: (its id, its mark), explained below the table
# once (`mark_explanation` of the template). A mark's own label says what it means for its cell
# (which input changed, why no interval, how the answers are degenerate).
CELL_NOTES = (("stale", "stale"), ("no-interval", "†"), ("not-pooled", "+n"), ("degenerate", "‡"))
# The notes of a submitted row: its declared use of dev data (on its name), a number above every
# published dev number (on its cell).
SUBMITTED_NOTES = (("dev-data", "dev"), ("above-dev", "▲"))


def _cell_notes(cell: Cell) -> dict[str, tuple[str, str]]:
    """The notes a cell carries: id -> (its mark, its label)."""
    s = "s" if cell.not_pooled > 1 else ""
    found = {
        "stale": cell.stale and ("stale", f"stale: {cell.stale} changed"),
        "no-interval": cell.no_interval and ("†", f"no interval: {cell.no_interval}"),
        "not-pooled": cell.not_pooled
        and (f"+{cell.not_pooled}", f"{cell.not_pooled} older run{s} not pooled"),
        "degenerate": cell.degenerate
        and ("‡", "degenerate answers: " + "; ".join(cell.degenerate)),
    }
    return {note: mark for note, mark in found.items() if mark}


def _submitted_notes(row: Row, key: tuple[str, str]) -> dict[str, tuple[str, str]]:
    """The note of a submitted row's cell: above every published dev number (or none)."""
    if not isinstance(row, SubmittedRow) or key not in row.above_dev:
        return {}
    return {"above-dev": ("▲", "above every published dev number of this metric")}


def _row_notes(row: Row) -> dict[str, tuple[str, str]]:
    """The note on a row's name: a submission that declares it used KLUE dev data."""
    if isinstance(row, SubmittedRow) and row.dev_data_used:
        return {"dev-data": ("dev", "declares KLUE dev data used for training or model selection")}
    return {}


def mark_notes(rows: list[Row], cols: list[tuple[Task, Metric]]) -> Markup:
    """Below the table, the explanation of each kind of mark its cells carry, once."""
    used = {
        note
        for row in rows
        if row.kind not in ("published", "submitted")
        for task, metric in cols
        if (task.name, metric.key) in row.cells
        for note in _cell_notes(row.cells[task.name, metric.key])
    }
    used |= {
        note
        for row in rows
        if row.kind == "submitted"
        for found in [_row_notes(row)] + [_submitted_notes(row, key) for key in row.cells]
        for note in found
    }
    notes = [(note, mark) for note, mark in CELL_NOTES + SUBMITTED_NOTES if note in used]
    return parts(TEMPLATE).mark_notes(notes)


def row_head(row: Row, notes: dict[str, str], page: str) -> Markup:
    """The row's first cell: the model (linked to its checkpoint or project, with its paper; a
    submission's name, as text, to its submission page), then its size, parameter count and
    split (and configuration) in small; a published row's split names its table's note (a
    letter per table, given in `notes`)."""
    note = link = paper = None
    html = parts(TEMPLATE)
    if row.kind == "published":
        note = notes.setdefault(row.source, "abcdefghijklmnopqrstuvwxyz"[len(notes)])
        ref = model_references().get(row.label, {})
        link = f"https://huggingface.co/{ref['hub']}" if "hub" in ref else ref.get("home", "")
        paper, count = ref.get("paper"), ref.get("parameters")
    elif row.kind == "submitted":
        link, counted = href(page, row.page), parameters_shown(row.submission.parameters)
        return html.row_head(row, note, link, paper, counted, _row_notes(row), RECOMPUTED)
    if row.kind != "published":
        count = model_entry(row.model).get("parameters")
    return html.row_head(row, note, link, paper, parameters_text(count), {}, RECOMPUTED)


def metric_head(task: Task, metric: Metric, page: str, marks: dict[tuple[str, str], int]) -> Markup:
    """A metric's column header: linked to its definition on the task's methods page, with a
    footnote number when the official metric is not what its name suggests."""
    key = (task.name, metric.key)
    number = marks.setdefault(key, len(marks) + 1) if key in metric_notes() else None
    errata = correcting_errata(task, metric)
    # A bug's or data error's value is a correction (c); a naming problem's an alternative (a).
    kinds = (
        ("c", "corrected", "corrected values", [e for e in errata if e.corrects]),
        (
            "a",
            "alternative",
            "alternative statistics, not corrections",
            [e for e in errata if not e.corrects],
        ),
    )
    errata_marks = [
        (mark, kind, f"{what}: {', '.join(e.id for e in chosen)}")
        for mark, kind, what, chosen in kinds
        if chosen
    ]
    return parts(TEMPLATE).metric_head(
        task,
        metric,
        href(page, methods_page(task), metrics_anchor(task)),
        number,
        href(page, RESULTS_PAGE, CORRECTED_ANCHOR),
        errata_marks,
    )


@dataclass
class Section:
    """A block of rows of the table, with a heading row; marks are compared within it."""

    title: str
    rows: list[Row]
    mark_best: bool = True
    empty: str = ""  # what an empty section says (markup: `no_run_yet` of the template)
    block: str = ""  # its short name, the interactive table's filter


@dataclass
class _Block:
    """A section as the table draws it: its kind (a class) and its rows, each its head and its
    cells."""

    section: Section
    kind: str
    rows: list[tuple[Markup, Markup]]


def table_html(sections: list[Section], tasks: list[Task], page: str) -> str:
    """The KLUE-style table: the plain table in blocks of rows, its interactive copy (one block
    column to filter by, columns sortable within each block: `table_assets`) built from it in
    the browser by `KLUE_TABLE_SCRIPT`, so that the page holds the table once, then its
    footnotes (no blank line, so Markdown keeps it one block)."""
    html = parts(TEMPLATE)
    cols = columns(tasks)
    marks: dict[tuple[str, str], int] = {}
    tasks_row = Markup("").join(
        html.task_head(t, href(page, task_page(t)), short_name(t)) for t in tasks
    )
    metrics_row = html.metrics_row([metric_head(t, m, page, marks) for t, m in cols])
    notes: dict[str, str] = {}
    blocks = []
    for section in sections:
        kind = re.sub(r"[^a-z0-9]+", "-", section.title.lower().split(":")[0]).strip("-")
        best = emphasis(section.rows, cols) if section.mark_best else {}
        ties = runner_up_ties(section.rows, best, cols) if section.mark_best else {}
        rows = []
        for i, row in enumerate(section.rows):
            cells = Markup("").join(
                cell_html(
                    row,
                    row.cells.get((t.name, m.key)),
                    best.get((i, f"{t.name}/{m.key}"), ""),
                    page,
                    ties.get((i, f"{t.name}/{m.key}"), ""),
                    (t.name, m.key),
                )
                for t, m in cols
            )
            rows.append((row_head(row, notes, page), cells))
        blocks.append(_Block(section, kind, rows))
    footnotes = mark_notes([r for section in sections for r in section.rows], cols)
    footnotes += Markup("").join(
        html.source_note(mark, source, published_tables().get(source, {}))
        for source, mark in notes.items()
    )
    footnotes += Markup("").join(
        html.metric_note(task, key, n, _task_label(tasks, task, key), metric_notes()[task, key])
        for (task, key), n in marks.items()
    )
    name = "The KLUE table" + (f": {short_name(tasks[0])}" if len(tasks) == 1 else "")
    caption = html.caption(name)
    plain = html.plain_table(caption, tasks_row, metrics_row, blocks, 1 + len(cols))
    script = posixpath.relpath(KLUE_TABLE_SCRIPT, posixpath.dirname(page) or ".")
    interactive = datatable("klue-table", caption, plain, page, TABLE_OPTIONS)
    return str(html.klue_table(script, interactive, footnotes))  # into a page's Markdown


# Where the site keeps the script that builds the interactive table from the plain one.
KLUE_TABLE_SCRIPT = "_static/kluebook-klue-table.js"


# The interactive KLUE table: every row on one page, sorted within its block (the blocks keep
# their order), the block column filtered from a list of its values, one search box; each block
# opens with its section's heading row, as in the plain table (RowGroup over the hidden section
# column).
TABLE_OPTIONS = {
    "classes": ["klue-table"],
    "paging": False,
    "order": [],
    "orderFixed": {"pre": [0, "asc"]},
    "autoWidth": False,
    "rowGroup": {"dataSrc": 1, "className": "section"},
    "columnDefs": [
        {"targets": 0, "className": "dt-left", "columnControl": [["searchList"]]},
        {"targets": 1, "visible": False},
    ],
    "layout": {"topStart": None, "topEnd": "search", "bottomStart": "info", "bottomEnd": None},
}


def _task_label(tasks: list[Task], name: str, key: str) -> str:
    task = next(t for t in tasks if t.name == name)
    metric = next(m for m in task.metrics if m.key == key)
    return f"{short_name(task)} {metric.label}"


def sections_for(
    rows: list[Row],
    published: list[Row],
    reference: list[Row] | None = None,
    submitted: list[Row] = (),
) -> list[Section]:
    """Published rows first (as in the KLUE README), then the README's first table (on dev) as
    the reference of the reproduced rows, then each reproduced profile and data source, then the
    smoke rows apart, then the prompted rows in blocks of their own (another protocol, never
    ranked), then the submitted rows (`kluebook.book.submitted`), a block of their own, never
    ranked against the runs."""
    sections = [
        Section(
            "Published: KLUE README, test split (KLUE's own marks recomputed)",
            published,
            block="Published",
        )
    ]
    if reference:
        sections.append(
            Section(
                "Dev reference: the KLUE README's first table (2021), dev split (see its note)",
                reference,
                block="Dev reference",
            )
        )
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    # The rows of unranked methods (prompted), by method: shown beside the ranking, never in it.
    beside: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for row in rows:
        if method_named(row.method).ranked:
            groups[row.profile, row.split].append(row)
        else:
            beside[row.method, row.profile, row.split].append(row)
    real = [k for k in groups if k[0] != "smoke"]
    for profile, split in real:
        title, block = f"Reproduced: {profile} profile, {split}", f"Reproduced, {profile}, {split}"
        sections.append(Section(title, groups[profile, split], block=block))
    if not real and not [k for k in beside if k[1] != "smoke"]:
        sections.append(
            Section(
                "Reproduced: paper profile, dev split",
                [],
                empty=parts(TEMPLATE).no_run_yet("paper"),
                block="Reproduced, paper, dev",
            )
        )
    for profile, split in [k for k in groups if k[0] == "smoke"]:
        sections.append(
            Section(
                f"Pipeline check: smoke profile, {split}: a tiny randomly initialised model "
                "fine-tuned on generated data, not a reproduction",
                groups[profile, split],
                mark_best=False,
                block=f"Smoke, {split}",
            )
        )
    order = [m.name for m in all_methods()]
    for (name, profile, split), mine in sorted(
        beside.items(), key=lambda k: (order.index(k[0][0]), k[0][1] == "smoke")
    ):
        title, block = method_named(name).table_section(profile, split)
        sections.append(Section(title, mine, mark_best=False, block=block))
    if submitted:
        title = f"Submitted: {RECOMPUTED} by the official metric code, dev split"
        sections.append(Section(title, list(submitted), mark_best=False, block="Submitted"))
    return sections
