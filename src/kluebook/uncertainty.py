"""The intervals the book shows: per table cell (its seeds and dev set resampled together), on
run cards, on task pages (the difference a dev set can resolve), and whether a column's best
configuration is distinguishable from its runner-up. The statistics are `kluebook.bootstrap`'s.

A cell of one seed shows the interval its run recorded. A cell of several seeds is recomputed
from the runs' predictions files and the dev set (the two-stage bootstrap of `bootstrap.pooled`),
so it needs the dev set at report time; where that cannot be read, the cell shows none.
"""

import statistics
from collections import defaultdict
from pathlib import Path

from kluebook import bootstrap
from kluebook.compare import record_gold
from kluebook.errors import KluebookError
from kluebook.json_files import read_jsonl
from kluebook.scoring import index_predictions
from kluebook.tasks import Task, get_task

_SEED_REPLICATES: dict[tuple, list[dict] | None] = {}  # runs' files -> their resampled values


def interval_text(interval: dict | None) -> str:
    return f"{interval['low']:.2f}–{interval['high']:.2f}" if interval else ""


def scores_text(task: Task, record: dict) -> str:
    """A run's dev scores, each with its 95% interval: `Macro F1 69.94 (95% CI 68.90–70.98)`."""
    metrics, intervals = record.get("metrics") or {}, record.get("intervals") or {}
    shown = []
    for metric in task.metrics:
        if metrics.get(metric.key) is None:
            continue
        text = f"{metric.label} {metrics[metric.key]:.2f}"
        if metric.key in intervals:
            text += f" (95% CI {interval_text(intervals[metric.key])})"
        shown.append(text)
    return ", ".join(shown)


def _seed_replicates(task: Task, runs: list[dict], root: Path) -> list[dict] | None:
    """Each run's resampled metric values on its dev set, or None where a file is missing."""
    key = (str(root), *((r.get("predictions"), r.get("fingerprint")) for r in runs))
    if key not in _SEED_REPLICATES:
        try:
            gold = record_gold(task, runs[0])
            found = []
            for run in runs:
                rows = read_jsonl(root / run["predictions"])
                predictions = index_predictions(task, gold, rows)
                found.append(bootstrap.replicates(task, gold, predictions))
        except (KluebookError, KeyError, OSError, TypeError):
            found = None
        _SEED_REPLICATES[key] = found
    return _SEED_REPLICATES[key]


def attach_intervals(cells: dict, task_name: str, runs: list[dict], root: Path) -> None:
    """Give the cells of one task in one row their interval (`cell.interval`) and their runs'
    resampled values (`cell.seed_replicates`, for paired comparisons); `runs` are the runs the
    cells pool, by seed."""
    per_seed = _comparable(runs) and _seed_replicates(get_task(task_name), runs, root)
    for (task, metric), cell in cells.items():
        if task != task_name:
            continue
        if len(runs) == 1 and metric in (runs[0].get("intervals") or {}):
            cell.interval = runs[0]["intervals"][metric]
        if per_seed and metric in per_seed[0]:
            cell.seed_replicates = [values[metric] for values in per_seed]
            if len(runs) > 1:
                pooled = bootstrap.pooled(cell.seed_replicates)
                cell.interval = bootstrap.percentile_interval(pooled)


def _comparable(runs: list[dict]) -> bool:
    """Whether every run kept its predictions, all on one dev set (data and limit)."""
    dev_sets = {(r.get("data_checksum"), r.get("parameters", {}).get("dev_limit")) for r in runs}
    return len(dev_sets) == 1 and all(r.get("predictions") for r in runs)


def cell_title(cell) -> str:
    """The hover text of a reproduced cell: its interval and what it accounts for."""
    interval = getattr(cell, "interval", None)
    if not interval:
        return ""
    seeds = len(cell.values)
    sources = "the dev set" + (f" and the {seeds} seeds" if seeds > 1 else "")
    return f"95% bootstrap interval {interval_text(interval)} (resampling {sources})"


def runner_up_ties(rows: list, marks: dict, cols: list) -> dict:
    """(row, column) -> a note, for a bold best value whose configuration is not
    distinguishable from the runner-up's by the paired bootstrap on the same dev set."""
    notes = {}
    for task, metric in cols:
        key, column = (task.name, metric.key), f"{task.name}/{metric.key}"
        current = (i for i, row in enumerate(rows) if row.has_current(key))
        ranked = sorted(current, key=lambda i: -rows[i].cells[key].mean)
        best = [i for i in ranked if "b" in marks.get((i, column), "")]
        if len(ranked) < 2 or len(best) != 1:  # no mark, or a tie that shares it already
            continue
        first, second = rows[best[0]].cells[key], rows[ranked[1]].cells[key]
        if not (first.seed_replicates and second.seed_replicates) or (
            rows[best[0]].data_source,
            len(first.seed_replicates[0]),
        ) != (rows[ranked[1]].data_source, len(second.seed_replicates[0])):
            continue
        result = bootstrap.paired_difference(
            metric.key,
            first.values,
            second.values,
            first.seed_replicates,
            second.seed_replicates,
        )
        if result.verdict != "A is better":
            runner_up = rows[ranked[1]]
            notes[(best[0], column)] = (
                f"best, but not distinguishable from the runner-up ({runner_up.label}, "
                f"{runner_up.config}: difference {result.difference:+.2f}, 95% interval "
                f"{result.low:+.2f} to {result.high:+.2f}, p = {result.p_value:.3f})"
            )
    return notes


def resolution_text(task: Task, records: list[dict]) -> str:
    """How large a difference the task's dev sets resolve: the median half-width of the runs'
    intervals per metric, for each data source and dev size the runs used."""
    widths: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if record.get("task") != task.name or not record.get("intervals"):
            continue
        dev = (record.get("counts") or {}).get("dev")
        for key, interval in record["intervals"].items():
            half = (interval["high"] - interval["low"]) / 2
            widths[(record["profile"], record["data_source"], dev)][key].append(half)
    unit = task.resampling_unit.name
    if not widths:
        return (
            "No run with bootstrap intervals yet: each run records the 95% interval of every "
            f"metric, resampling the dev set by {unit}.\n"
        )
    labels = {m.key: m.label for m in task.metrics}
    lines = [
        f"Each run records a 95% bootstrap interval of every metric, resampling the dev set by "
        f"{unit} ({bootstrap.RESAMPLES:,} resamples). A typical half-width, the median over the "
        "runs, is how large a difference between two single runs this dev set can resolve; "
        "`kluebook compare` tests a difference directly (see {doc}`/book/uncertainty`).\n",
        "| profile | data | dev size | typical half-width |",
        "|---|---|---|---|",
    ]
    for (profile, source, dev), by_metric in sorted(widths.items(), key=str):
        shown = ", ".join(
            f"{labels.get(k, k)} ± {statistics.median(v):.2f}"
            for k, v in by_metric.items()
            if k in labels
        )
        size = f"{dev:,}" if isinstance(dev, int) else "?"
        lines.append(f"| {profile} | {source} | {size} | {shown} |")
    return "\n".join(lines) + "\n"
