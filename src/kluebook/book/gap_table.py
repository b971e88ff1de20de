"""The gap between reproduced and published numbers: per released checkpoint reproduced and
metric, its dev mean minus its published test score."""

import html

from kluebook.book.klue_table import columns, short_name
from kluebook.results.aggregation import Row
from kluebook.tasks import Task


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
        if not row.is_default_config:
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
