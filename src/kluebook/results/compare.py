"""`kluebook compare A B`: is configuration A better than B on a task's dev set?

A and B are two predictions files scored against the same gold (as `kluebook score` takes
them), or two configurations of the records under results/ (a model id, or a configuration
label of a sweep such as `learning_rate=0.001`), each with its seeds. The seeds of each side and
the dev set's units are resampled together, on the same unit resamples for both sides
(`kluebook.scoring.bootstrap`), and each metric's difference A - B gets its interval, p-value and
verdict.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl
from kluebook.common.paths import ROOT
from kluebook.data.loading import data_checksum, load_split
from kluebook.recording.records import DEFAULT_CONFIG, RunRecord
from kluebook.results.pooling import code_today, configuration_key, pooled
from kluebook.scoring import bootstrap
from kluebook.scoring.predictions import index_predictions
from kluebook.scoring.switches import NO_SWITCHES
from kluebook.tasks import Task, task_module
from kluebook.training.recipes import record_switches


@dataclass
class Side:
    """One side of a comparison: its label, the switches it is scored with and, per seed, its
    predictions matched to the gold items, the metrics and their resamples."""

    label: str
    switches: Mapping[str, object] = field(default_factory=dict)
    predictions: list[dict] = field(default_factory=list)
    metrics: list[dict] = field(default_factory=list)
    replicates: list[dict] = field(default_factory=list)


def scored_side(
    task: Task,
    label: str,
    gold: list[dict],
    seeds: list[list[dict]],
    switches: Mapping[str, object] = NO_SWITCHES,
) -> Side:
    """The metrics and resampled values of each seed's prediction lines against `gold`, scored
    with the recipe `switches`."""
    side = Side(label, switches)
    for rows in seeds:
        try:
            predictions = index_predictions(task, gold, rows)
        except KluebookError as error:
            raise KluebookError(f"{label}: {error} (not the same dev set?)") from error
        side.predictions.append(predictions)
        side.metrics.append(task_module(task).score(gold, predictions, switches))
        side.replicates.append(bootstrap.replicates(task, gold, predictions, switches=switches))
    return side


class DataMismatch(KluebookError):
    """The data here are not the data a run scored (their checksum differs from its record's)."""


def record_gold(task: Task, record: RunRecord) -> list[dict]:
    """The dev records a run scored: its data source and folder, hub data at the commit it was
    pinned to, cut to its dev limit. `DataMismatch` when the data here are not those it scored
    (their checksum is not its record's)."""
    parameters = record.parameters
    data_dir = os.path.expandvars(parameters.get("data_dir") or "") or None
    source, revision = record.data_source, parameters.get("data_revision", "")
    recorded = record.outcome.data_checksum if record.outcome else None
    here = data_checksum(task, source, data_dir, revision)
    if recorded and here != recorded:
        raise DataMismatch(
            f"the {task.name} data here ({_short(here)}) are not those the run "
            f"{record.model} seed {record.seed} scored ({_short(recorded)})"
        )
    gold = load_split(task, "dev", source, data_dir, revision)
    limit = parameters.get("dev_limit") or 0
    return gold[:limit] if limit else gold


def _short(checksum: str) -> str:
    """A data checksum for a message: hub data by name and commit, files by their hash."""
    return checksum if checksum.startswith("hub:") else f"checksum {checksum[:12]}"


def configuration_runs(task: Task, records: list[RunRecord], name: str) -> list[RunRecord]:
    """The succeeded runs of `task` whose configuration label or model is `name`, of one
    configuration (profile, model, data source, label), ordered by seed: those its table cell
    pools (made from the same inputs, current ones first)."""
    runs = [r for r in records if r.task == task.name and r.outcome is not None]
    chosen = [r for r in runs if r.config == name] or [
        r for r in runs if r.model == name and r.config == DEFAULT_CONFIG
    ]
    if not chosen:
        known = sorted({r.config for r in runs} | {r.model for r in runs})
        raise KluebookError(
            f"no succeeded {task.name} run of {name!r}; known: {', '.join(known) or 'none'}"
        )
    kinds = {configuration_key(r) for r in chosen}
    if len(kinds) > 1:
        shown = "; ".join("/".join(str(part) for part in kind) for kind in sorted(kinds))
        raise KluebookError(f"{name!r} names several configurations: {shown}")
    runs, _ = pooled(chosen, code_today(chosen))  # the runs its table cell pools
    return runs


def from_records(task: Task, records: list[RunRecord], a: str, b: str, root: Path = ROOT):
    """Both sides from the records of configurations `a` and `b`, and their shared gold."""
    runs = {name: configuration_runs(task, records, name) for name in (a, b)}
    dev_sets = {name: {r.dev_set for r in found} for name, found in runs.items()}
    if len(dev_sets[a] | dev_sets[b]) > 1:
        raise KluebookError(f"{a!r} and {b!r} were scored on different dev sets (data or limit)")
    gold = record_gold(task, runs[a][0])
    sides = []
    for name in (a, b):
        seeds = []
        for record in runs[name]:
            if not record.predictions:
                raise KluebookError(f"{name!r} seed {record.seed}: the record has no predictions")
            seeds.append(read_jsonl(root / record.predictions))
        label = f"{name} ({len(seeds)} seed{'s' if len(seeds) > 1 else ''})"
        switches = record_switches(task, runs[name][0].outcome.recipe)
        sides.append(scored_side(task, label, gold, seeds, switches))
    return gold, sides


def load_gold(task: Task, gold: Path | None) -> list[dict]:
    """An official dev file's records, or the hub split's without one (as `kluebook score`)."""
    return task_module(task).read_official(gold) if gold else load_split(task, "dev", "hub", None)


def from_files(
    task: Task, gold: list[dict], a: Path, b: Path, switches: Mapping[str, object] = NO_SWITCHES
) -> list[Side]:
    return [scored_side(task, str(path), gold, [read_jsonl(path)], switches) for path in (a, b)]


def compare(task: Task, a: Side, b: Side) -> list[bootstrap.Difference]:
    """The paired difference A - B of each defined metric of the task."""
    results = []
    for metric in task.metrics:
        observed = [[m.get(metric.key) for m in side.metrics] for side in (a, b)]
        if any(value is None for values in observed for value in values):
            continue
        results.append(
            bootstrap.paired_difference(
                metric.key,
                *observed,
                [r[metric.key] for r in a.replicates],
                [r[metric.key] for r in b.replicates],
            )
        )
    return results


def table(task: Task, gold: list[dict], a: Side, b: Side, results) -> str:
    """The comparison as plain text: what was compared, then one line per metric."""
    units = int(bootstrap.units_of(task, gold).max()) + 1
    lines = [
        f"{task.name}: A = {a.label}, B = {b.label}",
        f"paired bootstrap over {units} {task.resampling_unit.name}s"
        f"{' and the seeds' if len(a.metrics) + len(b.metrics) > 2 else ''}, "
        f"{bootstrap.RESAMPLES:,} resamples (seed {bootstrap.SEED}); 95% percentile intervals",
        "",
        f"{'metric':<22}{'A':>8}{'B':>8}{'A - B':>8}  {'95% interval':<18}{'p':>7}  verdict",
    ]
    labels = {m.key: m.label for m in task.metrics}
    for d in results:
        interval = f"[{d.low:+.2f}, {d.high:+.2f}]"
        lines.append(
            f"{labels[d.metric]:<22}{d.a:>8.2f}{d.b:>8.2f}{d.difference:>+8.2f}  "
            f"{interval:<18}{_p(d.p_value):>7}  {d.verdict}"
        )
    return "\n".join(lines)


def _p(value: float) -> str:
    return f"{value:.3f}" if value >= 0.001 else "<0.001"


def is_predictions_file(name: str) -> bool:
    return Path(name).suffix in {".jsonl", ".json"} or Path(name).is_file()
