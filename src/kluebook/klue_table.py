"""The KLUE-style table as HTML: a row per model, the tasks and their metrics as columns in the
registry's order, in sections of comparable rows; and the gap between reproduced and published
numbers."""

import html
import re
from collections import defaultdict
from dataclasses import dataclass

from kluebook.aggregation import Cell, Row
from kluebook.klue_marks import emphasis, emphasise
from kluebook.links import href, task_page
from kluebook.tasks import Metric, Task


def short_name(task: Task) -> str:
    """The task's name as the KLUE tables print it: the acronym in parentheses in its title."""
    found = re.search(r"\(([^)]+)\)\s*$", task.title)
    return found.group(1) if found else task.name.upper()


def columns(tasks: list[Task]) -> list[tuple[Task, Metric]]:
    """The table's number columns: each task's metrics in its task.yaml's order."""
    return [(task, metric) for task in tasks for metric in task.metrics]


def cell_html(row: Row, cell: Cell | None, mark: str, page: str) -> str:
    if cell is None:
        return '<td class="num missing">—</td>'
    if row.kind == "published":
        return f'<td class="num">{emphasise(f"{cell.mean:.2f}", mark)}</td>'
    n = len(cell.values)
    spread = f"± {cell.sd:.2f} · " if cell.sd is not None else ""
    links = " ".join(
        f'<a href="{href(page, run)}" title="seed {seed}: {value:.2f}">s{seed}</a>'
        if run
        else f"s{seed}"
        for (seed, run), value in zip(cell.runs, cell.values, strict=True)
    )
    return (
        f'<td class="num">{emphasise(f"{cell.mean:.2f}", mark)}'
        f'<span class="sd" title="sample sd over {n} seed{"s" if n > 1 else ""}">'
        f"{spread}n={n}</span>"
        f'<span class="runs">{links}</span>{pooling_note(cell)}</td>'
    )


def pooling_note(cell: Cell) -> str:
    """Below a reproduced cell: whether its runs are stale, and the runs it leaves out."""
    note = ""
    if cell.stale:
        note += (
            f'<span class="stale" title="made before its {html.escape(cell.stale)} changed">'
            f"stale: {html.escape(cell.stale)} changed</span>"
        )
    if cell.not_pooled:
        s = "s" if cell.not_pooled > 1 else ""
        note += f'<span class="not-pooled">{cell.not_pooled} older run{s} not pooled</span>'
    return note


def row_head(row: Row, notes: dict[str, str]) -> str:
    """The row's first cell: the model, then its size and split (and configuration) in small."""
    if row.kind == "published":
        note = notes.setdefault(row.source, "abcdefghijklmnopqrstuvwxyz"[len(notes)])
        split = f'{html.escape(row.split)}<sup><a href="#klue-note-{note}">{note}</a></sup>'
        label = html.escape(row.label)
    else:
        split = html.escape(row.split)
        label = f"<code>{html.escape(row.label)}</code>"
    detail = f'<span class="config">{html.escape(row.size)} · {split}</span>'
    if row.kind == "reproduced" and row.config != "default":
        detail += f'<span class="config">{html.escape(row.config.replace(",", ", "))}</span>'
    return f'<th class="model" scope="row">{label}{detail}</th>'


@dataclass
class Section:
    """A block of rows of the table, with a heading row; marks are compared within it."""

    title: str
    rows: list[Row]
    mark_best: bool = True
    empty: str = ""


def table_html(sections: list[Section], tasks: list[Task], page: str) -> str:
    """The KLUE-style table as HTML (no blank line, so Markdown keeps it one block)."""
    cols = columns(tasks)
    width = 1 + len(cols)
    head = [
        '<tr><th rowspan="2" class="model" scope="col">Model<span class="config">size · split'
        "</span></th>"
        + "".join(
            f'<th colspan="{len(t.metrics)}" class="task" scope="colgroup">'
            f'<a href="{href(page, task_page(t))}" title="{html.escape(t.title)}">'
            f"{html.escape(short_name(t))}</a></th>"
            for t in tasks
        )
        + "</tr>",
        "<tr>"
        + "".join(f'<th class="metric" scope="col">{html.escape(m.label)}</th>' for _, m in cols)
        + "</tr>",
    ]
    notes: dict[str, str] = {}
    body = []
    for section in sections:
        kind = re.sub(r"[^a-z]+", "-", section.title.lower().split(":")[0]).strip("-")
        body.append(f'<tbody class="{kind}">')
        body.append(
            f'<tr class="section"><th colspan="{width}" scope="rowgroup">'
            f'<span class="section-title">{html.escape(section.title)}</span></th></tr>'
        )
        if not section.rows and section.empty:
            body.append(
                f'<tr><td colspan="{width}" class="empty">'
                f'<span class="section-title">{section.empty}</span></td></tr>'
            )
        marks = emphasis(section.rows, cols) if section.mark_best else {}
        for i, row in enumerate(section.rows):
            cells = "".join(
                cell_html(
                    row,
                    row.cells.get((t.name, m.key)),
                    marks.get((i, f"{t.name}/{m.key}"), ""),
                    page,
                )
                for t, m in cols
            )
            body.append(f"<tr>{row_head(row, notes)}{cells}</tr>")
        body.append("</tbody>")
    footnotes = "".join(
        f'<p class="klue-note" id="klue-note-{mark}"><sup>{mark}</sup> Test split: the private '
        f"KLUE test set, as published in {html.escape(source)}.</p>"
        for source, mark in notes.items()
    )
    return (
        '<div class="klue-table-wrap"><table class="klue-table">'
        f"<thead>{''.join(head)}</thead>{''.join(body)}</table></div>{footnotes}"
    )


def gap_html(rows: list[Row], published: list[Row], tasks: list[Task], page: str) -> str:
    """Reproduced minus published, per released checkpoint and metric (dev minus test)."""
    by_name = {r.label: r for r in published}
    pairs = [(r, by_name[r.published_name]) for r in rows if r.published_name in by_name]
    if not pairs:
        return (
            "No released KLUE checkpoint has been reproduced yet: this view appears after "
            "`kluebook run --profile paper`.\n"
        )
    cols = columns(tasks)
    head = (
        '<tr><th class="model" scope="col">Reproduced</th><th scope="col">Published</th>'
        + "".join(
            f'<th class="metric" scope="col">{html.escape(short_name(t))} '
            f"{html.escape(m.label)}</th>"
            for t, m in cols
        )
        + "</tr>"
    )
    body = []
    for row, theirs in pairs:
        cells = []
        for t, m in cols:
            mine, them = row.cells.get((t.name, m.key)), theirs.cells.get((t.name, m.key))
            if mine is None or them is None:
                cells.append('<td class="num missing">—</td>')
                continue
            gap = mine.mean - them.mean
            cells.append(
                f'<td class="num" title="dev {mine.mean:.2f} − test {them.mean:.2f}">'
                f"{gap:+.2f}</td>"
            )
        label = f"<code>{html.escape(row.label)}</code>"
        if row.config != "default":
            label += f'<span class="config">{html.escape(row.config)}</span>'
        body.append(
            f'<tr><th class="model" scope="row">{label} <span class="config">'
            f"{html.escape(row.profile)}, {html.escape(row.split)}</span></th>"
            f"<td>{html.escape(theirs.label)}</td>{''.join(cells)}</tr>"
        )
    return (
        '<div class="klue-table-wrap"><table class="klue-table gap">'
        f"<thead>{head}</thead><tbody>{''.join(body)}</tbody></table></div>\n"
    )


def sections_for(rows: list[Row], published: list[Row]) -> list[Section]:
    """Published rows first (as in the KLUE README), then each reproduced profile and data
    source, then the smoke rows apart."""
    sections = [
        Section("Published: KLUE README, test split (KLUE's own marks recomputed)", published)
    ]
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        groups[(row.profile, row.split)].append(row)
    real = [k for k in groups if k[0] != "smoke"]
    for profile, split in real:
        sections.append(Section(f"Reproduced: {profile} profile, {split}", groups[profile, split]))
    if not real:
        sections.append(
            Section(
                "Reproduced: paper profile, dev split",
                [],
                empty="No paper-profile run yet: <code>kluebook run --profile paper</code> "
                "adds its rows here.",
            )
        )
    for profile, split in [k for k in groups if k[0] == "smoke"]:
        sections.append(
            Section(
                f"Pipeline check: smoke profile, {split}: generated data and a tiny untrained "
                "model, not a reproduction",
                groups[profile, split],
                mark_best=False,
            )
        )
    return sections
