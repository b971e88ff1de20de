"""The gap between reproduced and published numbers: per released checkpoint reproduced and
metric, its dev mean minus its published test score (HTML: the template `gap_table.html`)."""

from kluebook.book.klue_table import columns, short_name
from kluebook.book.templating import parts
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
    heads = [f"{short_name(t)} {m.label}" for t, m in cols]
    lines = []
    for row, theirs in pairs:
        means = []
        for t, m in cols:
            mine, them = row.cells.get((t.name, m.key)), theirs.cells.get((t.name, m.key))
            means.append(None if mine is None or them is None else (mine.mean, them.mean))
        lines.append((row, theirs, means))
    return str(parts("gap_table.html").gap_table(heads, lines)) + "\n"
