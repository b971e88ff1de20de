"""The intervals the book shows: per table cell (its seeds and dev set resampled together), on
run cards, on task pages (the difference a dev set can resolve), and whether a column's best
configuration is distinguishable from its runner-up. The statistics are
`kluebook.scoring.bootstrap`'s.

A cell of one seed shows the interval its run recorded. A cell of several seeds is recomputed
from the runs' predictions files and the dev set they scored (the two-stage bootstrap of
`bootstrap.pooled`), so it needs that dev set at report time: where it cannot be read, or the data
here are not those the runs scored, the cell says so (`Cell.no_interval`).
"""

import os
import statistics
from collections import defaultdict
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl
from kluebook.common.paths import scrub
from kluebook.recording.records import Interval, RunRecord
from kluebook.results.compare import DataMismatch, record_gold
from kluebook.scoring import bootstrap
from kluebook.scoring.predictions import index_predictions
from kluebook.tasks import Task, get_task

_SEED_REPLICATES: dict[tuple, list[dict] | None] = {}  # runs' files -> their resampled values


def interval_text(interval: Interval | None) -> str:
    return f"{interval.low:.2f}–{interval.high:.2f}" if interval else ""


def scores_text(task: Task, record: RunRecord) -> str:
    """A run's dev scores, each with its 95% interval: `Macro F1 69.94 (95% CI 68.90–70.98)`."""
    if record.outcome is None:
        return ""
    metrics, intervals = record.outcome.metrics, record.outcome.intervals or {}
    shown = []
    for metric in task.metrics:
        if metrics.get(metric.key) is None:
            continue
        text = f"{metric.label} {metrics[metric.key]:.2f}"
        if metric.key in intervals:
            text += f" (95% CI {interval_text(intervals[metric.key])})"
        shown.append(text)
    return ", ".join(shown)


def _seed_replicates(
    task: Task, runs: list[RunRecord], root: Path
) -> tuple[list[dict] | None, str]:
    """Each run's resampled metric values on the dev set it scored; else None and why not."""
    key = (str(root), *((r.predictions, r.fingerprint, r.dev_set) for r in runs))
    if key not in _SEED_REPLICATES:
        try:
            gold = record_gold(task, runs[0])
            found = []
            for run in runs:
                rows = read_jsonl(root / run.predictions)
                predictions = index_predictions(task, gold, rows)
                found.append(bootstrap.replicates(task, gold, predictions))
            _SEED_REPLICATES[key] = found, ""
        except DataMismatch as error:
            _SEED_REPLICATES[key] = None, str(error)
        except (KluebookError, KeyError, OSError, TypeError) as error:
            reason = str(error) if isinstance(error, KluebookError) else type(error).__name__
            reason = scrub(reason.replace(f"{root}{os.sep}", ""))  # the table names no folder
            _SEED_REPLICATES[key] = None, f"the dev set or predictions cannot be read: {reason}"
    return _SEED_REPLICATES[key]


def attach_intervals(cells: dict, task_name: str, runs: list[RunRecord], root: Path) -> None:
    """Give the cells of one task in one row their interval (`cell.interval`) and their runs'
    resampled values (`cell.seed_replicates`, for paired comparisons); `runs` are the runs the
    cells pool, by seed. A cell of several seeds whose dev set cannot be read here, or is not the
    one its runs scored, says so (`cell.no_interval`)."""
    per_seed, why = (
        _seed_replicates(get_task(task_name), runs, root) if _comparable(runs) else (None, "")
    )
    for (task, metric), cell in cells.items():
        if task != task_name:
            continue
        recorded = (runs[0].outcome.intervals or {}) if len(runs) == 1 else {}
        if metric in recorded:
            cell.interval = recorded[metric]
        if per_seed and metric in per_seed[0]:
            cell.seed_replicates = [values[metric] for values in per_seed]
            if len(runs) > 1:
                found = bootstrap.percentile_interval(bootstrap.pooled(cell.seed_replicates))
                cell.interval = Interval.model_validate(found) if found else None
        elif len(runs) > 1 and why:
            cell.no_interval = why


def _comparable(runs: list[RunRecord]) -> bool:
    """Whether every run kept its predictions, all on one dev set (data and limit)."""
    return len({r.dev_set for r in runs}) == 1 and all(r.predictions for r in runs)


def cell_title(cell) -> str:
    """The hover text of a reproduced cell: its interval and what it accounts for."""
    interval = getattr(cell, "interval", None)
    if not interval:
        why = getattr(cell, "no_interval", "")
        return f"no bootstrap interval: {why}" if why else ""
    seeds = len(cell.values)
    sources = "the dev set" + (f" and the {seeds} seeds" if seeds > 1 else "")
    return f"95% bootstrap interval {interval_text(interval)} (resampling {sources})"


def runner_up_ties(rows: list, marks: dict, cols: list) -> dict:
    """(row, column) -> a note, for a bold best value whose configuration is not
    distinguishable from the runner-up's by the paired bootstrap on the same dev set."""
    notes = {}
    for task, metric in cols:
        key, column = (task.name, metric.key), f"{task.name}/{metric.key}"
        current = (i for i, row in enumerate(rows) if row.is_ranked(key))
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


def resolution_text(task: Task, records: list[RunRecord]) -> str:
    """How large a difference the task's dev sets resolve: the median half-width of the runs'
    intervals per metric, for each data source and dev size the runs used."""
    widths: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if record.task != task.name or record.outcome is None or not record.outcome.intervals:
            continue
        dev = record.outcome.counts.get("dev")
        for key, interval in record.outcome.intervals.items():
            half = (interval.high - interval.low) / 2
            widths[(record.profile, record.data_source, dev)][key].append(half)
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
