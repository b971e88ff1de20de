"""The KLUE-style table as HTML: a row per model, the tasks and their metrics as columns in the
registry's order, in sections of comparable rows, each metric an erratum corrects marked (c, or a
for an alternative statistic beside a misleadingly named one); and
its interactive copy, a block column to filter and columns to sort within the blocks."""

import html
import posixpath
import re
from collections import defaultdict
from dataclasses import dataclass

from kluebook.book.klue_marks import emphasis, emphasise
from kluebook.book.klue_notes import metric_notes, model_references, source_note
from kluebook.book.table_assets import datatable
from kluebook.errata.manifest import Erratum, manifest
from kluebook.recording.fingerprints import FINE_TUNED
from kluebook.results.aggregation import Cell, Row
from kluebook.results.links import ITEMS_ANCHOR, RESULTS_PAGE, href, methods_page, task_page
from kluebook.results.uncertainty import cell_title, runner_up_ties
from kluebook.tasks import Metric, Task
from kluebook.training.checkpoints import model_entry

# The KLUE repositories the table's numbers and metrics come from.
KLUE_REPOSITORY = "https://github.com/KLUE-benchmark/KLUE"
KLUE_BASELINE = "https://github.com/KLUE-benchmark/KLUE-baseline"


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


def cell_html(row: Row, cell: Cell | None, mark: str, page: str, tie: str = "") -> str:
    """A number cell; `data-order` is the value an interactive table sorts it by. Each seed of a
    reproduced cell links to the item browser of its run (`ITEMS_ANCHOR` of the run page)."""
    if cell is None:
        return '<td class="num missing" data-order="-1">—</td>'
    order = f' data-order="{cell.mean:.4f}"'
    if row.kind == "published":
        return f'<td class="num"{order}>{emphasise(f"{cell.mean:.2f}", mark)}</td>'
    n = len(cell.values)
    spread = f"± {cell.sd:.2f} · " if cell.sd is not None else ""
    links = " ".join(
        f'<a href="{href(page, run, ITEMS_ANCHOR)}" title="seed {seed}: {value:.2f}, its items">'
        f"s{seed}</a>"
        if run
        else f"s{seed}"
        for (seed, run), value in zip(cell.runs, cell.values, strict=True)
    )
    title = cell_title(cell)  # its bootstrap interval, on hover
    attribute = f' title="{html.escape(title)}"' if title else ""
    tie = f'<span class="tie" title="{html.escape(tie)}">≈</span>' if tie else ""
    # The parts are blocks on screen; a space between them keeps them apart when read aloud
    # or copied ("95.46 ± 2.67 · n=2 s1 s2").
    return (
        f'<td class="num"{attribute}{order}>'
        f"{emphasise(f'{cell.mean:.2f}', mark)}{tie}{cell_marks(cell)} "
        f'<span class="sd" title="sample sd over {n} seed{"s" if n > 1 else ""}">'
        f"{spread}n={n}</span> "
        f'<span class="runs">{links}</span></td>'
    )


# The notes of a reproduced cell, as short marks: (its id, its mark, its explanation below the
# table, given once). A mark's own label says what it means for its cell (which input changed,
# why no interval, how the answers are degenerate).
CELL_NOTES = (
    (
        "stale",
        "stale",
        "its runs were made before one of their inputs changed (the mark's label says "
        "which); shown, never marked best, until <code>kluebook run</code> makes it current.",
    ),
    ("no-interval", "†", "no bootstrap interval (the mark's label says why)."),
    (
        "not-pooled",
        "+n",
        "n older runs of its configuration, made by older code, are not pooled.",
    ),
    (
        "degenerate",
        "‡",
        "degenerate answers (its run pages say why): the runs answered in a way that says "
        "little about the task, such as one label for every item (the mark's label says how).",
    ),
)


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


def cell_marks(cell: Cell) -> str:
    """A reproduced cell's short marks, each linked to its explanation below the table."""
    return "".join(
        f'<sup class="cell-mark {note}"><a href="#klue-mark-{note}" '
        f'title="{html.escape(label, quote=True)}" aria-label="{html.escape(label, quote=True)}">'
        f"{html.escape(mark)}</a></sup>"
        for note, (mark, label) in _cell_notes(cell).items()
    )


def mark_notes(rows: list[Row], cols: list[tuple[Task, Metric]]) -> str:
    """Below the table, the explanation of each kind of mark its cells carry, once."""
    used = {
        note
        for row in rows
        if row.kind != "published"
        for task, metric in cols
        if (task.name, metric.key) in row.cells
        for note in _cell_notes(row.cells[task.name, metric.key])
    }
    return "".join(
        f'<p class="klue-note" id="klue-mark-{note}"><sup>{html.escape(mark)}</sup> {text}</p>'
        for note, mark, text in CELL_NOTES
        if note in used
    )


def row_head(row: Row, notes: dict[str, str]) -> str:
    """The row's first cell: the model (linked to its checkpoint or project, with its paper),
    then its size, parameter count and split (and configuration) in small."""
    if row.kind == "published":
        note = notes.setdefault(row.source, "abcdefghijklmnopqrstuvwxyz"[len(notes)])
        split = f'{html.escape(row.split)}<sup><a href="#klue-note-{note}">{note}</a></sup>'
        ref = model_references().get(row.label, {})
        where = f"https://huggingface.co/{ref['hub']}" if "hub" in ref else ref.get("home", "")
        label = html.escape(row.label)
        if where:
            label = f'<a href="{html.escape(where, quote=True)}">{label}</a>'
        paper = ref.get("paper")
        count = ref.get("parameters")
    else:
        split = html.escape(row.split)
        label = f"<code>{html.escape(row.label)}</code>"
        paper, count = None, model_entry(row.model).get("parameters")
    facts = [html.escape(row.size), parameters_text(count), split]
    if paper:  # on the facts' line: the name alone on the first
        facts.append(f'<a class="paper" href="{html.escape(paper, quote=True)}">paper</a>')
    detail = f'<span class="config">{" · ".join(f for f in facts if f)}</span>'
    if row.kind == "reproduced" and row.configuration:
        detail += f'<span class="config">{html.escape(row.configuration)}</span>'
    return f'<th class="model" scope="row">{label}{detail}</th>'


def metric_head(task: Task, metric: Metric, page: str, marks: dict[tuple[str, str], int]) -> str:
    """A metric's column header: linked to its definition on the task's methods page, with a
    footnote number when the official metric is not what its name suggests."""
    link = href(page, methods_page(task), metrics_anchor(task))
    title = html.escape(f"{task.title}: how {metric.label} is computed", quote=True)
    text = f'<a href="{link}" title="{title}">{html.escape(metric.label)}</a>'
    key = (task.name, metric.key)
    if key in metric_notes():
        number = marks.setdefault(key, len(marks) + 1)
        text += (
            f'<sup><a href="#klue-metric-{task.name}-{metric.key}">'
            f'<span class="visually-hidden"> (note </span>{number}'
            '<span class="visually-hidden">)</span></a></sup>'
        )
    errata = correcting_errata(task, metric)
    where = href(page, RESULTS_PAGE, CORRECTED_ANCHOR)
    # A bug's or data error's value is a correction (c); a naming problem's an alternative (a).
    for mark, kind, what, chosen in (
        ("c", "corrected", "corrected values", [e for e in errata if e.corrects]),
        (
            "a",
            "alternative",
            "alternative statistics, not corrections",
            [e for e in errata if not e.corrects],
        ),
    ):
        if chosen:
            named = html.escape(f"{what}: {', '.join(e.id for e in chosen)}", quote=True)
            text += (
                f'<sup class="{kind}"><a href="{where}" aria-label="{named}" title="{named}">'
                f'<span class="visually-hidden"> (</span>{mark}'
                f'<span class="visually-hidden">: {kind})</span></a></sup>'
            )
    return f'<th class="metric" scope="col">{text}</th>'


@dataclass
class Section:
    """A block of rows of the table, with a heading row; marks are compared within it."""

    title: str
    rows: list[Row]
    mark_best: bool = True
    empty: str = ""
    block: str = ""  # its short name, the interactive table's filter


def table_html(sections: list[Section], tasks: list[Task], page: str) -> str:
    """The KLUE-style table: the plain table in blocks of rows, its interactive copy (one block
    column to filter by, columns sortable within each block: `table_assets`) built from it in
    the browser by `KLUE_TABLE_SCRIPT`, so that the page holds the table once, then its
    footnotes (no blank line, so Markdown keeps it one block)."""
    cols = columns(tasks)
    width = 1 + len(cols)
    marks: dict[tuple[str, str], int] = {}
    tasks_row = "".join(
        f'<th colspan="{len(t.metrics)}" class="task" scope="colgroup">'
        f'<a href="{href(page, task_page(t))}" title="{html.escape(t.title)}">'
        f"{html.escape(short_name(t))}</a></th>"
        for t in tasks
    )
    model = (
        '<th rowspan="2" class="model" scope="col">Model <span class="config">size · split'
        "</span></th>"
    )
    metrics_row = "<tr>" + "".join(metric_head(t, m, page, marks) for t, m in cols) + "</tr>"
    notes: dict[str, str] = {}
    body = []
    for section in sections:
        kind = re.sub(r"[^a-z0-9]+", "-", section.title.lower().split(":")[0]).strip("-")
        title = f'<span class="section-title">{html.escape(section.title)}</span>'
        body.append(f'<tbody class="{kind}">')
        body.append(
            f'<tr class="section" data-block="{html.escape(section.block, quote=True)}">'
            f'<th colspan="{width}" scope="rowgroup">{title}</th></tr>'
        )
        if not section.rows and section.empty:
            body.append(
                f'<tr><td colspan="{width}" class="empty">'
                f'<span class="section-title">{section.empty}</span></td></tr>'
            )
        best = emphasis(section.rows, cols) if section.mark_best else {}
        ties = runner_up_ties(section.rows, best, cols) if section.mark_best else {}
        for i, row in enumerate(section.rows):
            cells = "".join(
                cell_html(
                    row,
                    row.cells.get((t.name, m.key)),
                    best.get((i, f"{t.name}/{m.key}"), ""),
                    page,
                    ties.get((i, f"{t.name}/{m.key}"), ""),
                )
                for t, m in cols
            )
            body.append(f"<tr>{row_head(row, notes)}{cells}</tr>")
        body.append("</tbody>")
    footnotes = mark_notes([r for section in sections for r in section.rows], cols)
    footnotes += "".join(source_note(mark, source) for source, mark in notes.items())
    footnotes += "".join(
        f'<p class="klue-note" id="klue-metric-{task}-{key}"><sup>{number}</sup> '
        f"{html.escape(_task_label(tasks, task, key))}: {html.escape(metric_notes()[task, key])}"
        "</p>"
        for (task, key), number in marks.items()
    )
    name = "The KLUE table" + (f": {short_name(tasks[0])}" if len(tasks) == 1 else "")
    caption = f'<caption class="visually-hidden">{html.escape(name)}</caption>'
    plain = (
        f'<table class="klue-table">{caption}'
        f"<thead><tr>{model}{tasks_row}</tr>{metrics_row}</thead>{''.join(body)}</table>"
    )
    script = posixpath.relpath(KLUE_TABLE_SCRIPT, posixpath.dirname(page) or ".")
    interactive = datatable("klue-table", caption, plain, page, TABLE_OPTIONS)
    return (
        f'{LAYOUT_NOTE}<div class="klue-table-wrap"><script type="module" src="{script}">'
        f"</script>{interactive}</div>{footnotes}"
    )


# Where the site keeps the script that builds the interactive table from the plain one.
KLUE_TABLE_SCRIPT = "_static/kluebook-klue-table.js"


# How the table reads on a narrow screen (said above it).
LAYOUT_NOTE = (
    '<p class="klue-table-layout">On a narrow screen the model column stays pinned at the left '
    "while the numbers scroll sideways beside it. A note on a cell is a short mark "
    "(stale, †, ‡, +n), explained once below the table.</p>"
)


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
    rows: list[Row], published: list[Row], reference: list[Row] | None = None
) -> list[Section]:
    """Published rows first (as in the KLUE README), then the README's first table (on dev) as
    the reference of the reproduced rows, then each reproduced profile and data source, then the
    smoke rows apart, then the prompted rows in blocks of their own (another protocol, never
    ranked)."""
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
    prompted: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        (groups if row.method == FINE_TUNED else prompted)[(row.profile, row.split)].append(row)
    real = [k for k in groups if k[0] != "smoke"]
    for profile, split in real:
        title, block = f"Reproduced: {profile} profile, {split}", f"Reproduced, {profile}, {split}"
        sections.append(Section(title, groups[profile, split], block=block))
    if not real and not [k for k in prompted if k[0] != "smoke"]:
        sections.append(
            Section(
                "Reproduced: paper profile, dev split",
                [],
                empty="No paper-profile run yet: <code>kluebook run --profile paper</code> "
                "adds its rows here.",
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
    for (profile, split), mine in sorted(prompted.items(), key=lambda k: k[0][0] == "smoke"):
        what = (
            "a tiny randomly initialised causal LM prompted on generated data, not a result"
            if profile == "smoke"
            else "a language model answering prompts, trained on nothing: another protocol, "
            "never ranked against the fine-tuned rows"
        )
        kind = "Prompted pipeline check" if profile == "smoke" else "Prompted"
        title = f"{kind}: {profile} profile, {split}: {what}"
        block = (
            f"Prompted smoke, {split}" if profile == "smoke" else f"Prompted, {profile}, {split}"
        )
        sections.append(Section(title, mine, mark_best=False, block=block))
    return sections
