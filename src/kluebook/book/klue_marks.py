"""KLUE's emphasis marks: per column, the best value in bold and the best among base-size models
in italics (the KLUE table's template draws them, `emphasised`). Only current, fine-tuned values
compete: a stale cell (made before an input changed) is shown, marked stale, but is never the
best, and a prompted row is never ranked against the fine-tuned ones."""

from kluebook.results.aggregation import Row
from kluebook.tasks import Metric, Task


def emphasis(rows: list[Row], cols: list[tuple[Task, Metric]]) -> dict[tuple[int, str], str]:
    """As KLUE marks its table: per column, the best value in bold and the best among base-size
    models in italics (ties share the mark), compared on the two decimals shown."""
    marks: dict[tuple[int, str], str] = {}
    for task, metric in cols:
        key = (task.name, metric.key)
        values = {i: round(r.cells[key].mean, 2) for i, r in enumerate(rows) if r.is_ranked(key)}
        if len(values) < 2:
            continue
        best = max(values.values())
        base = [v for i, v in values.items() if rows[i].size == "base"]
        for i, value in values.items():
            mark = ("b" if value == best else "") + (
                "i" if base and rows[i].size == "base" and value == max(base) else ""
            )
            if mark:
                marks[(i, f"{task.name}/{metric.key}")] = mark
    return marks
