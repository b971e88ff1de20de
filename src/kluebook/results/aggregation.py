"""The numbers of the tables: published rows from configs/published_scores.csv (the KLUE
README's test-set scores, with their source) and reproduced rows from the run records (a row per
profile, model, data source and configuration; its seeds pooled per metric).

A cell pools only the runs of its configuration made from one set of inputs (`pooling`): the
current code and notebook of their task where there are such runs (else the newest runs, marked
stale); the others are counted, never averaged in."""

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pandas as pd
import yaml

from kluebook.common.paths import CONFIGS, ROOT
from kluebook.methods.registry import DEFAULT_METHOD, method_named
from kluebook.recording.records import DEFAULT_CONFIG, Interval, RunRecord
from kluebook.results.degenerate import degenerate_reasons, same_answers
from kluebook.results.links import run_page
from kluebook.results.pooling import code_today, errata_stale, pooled
from kluebook.results.uncertainty import attach_intervals
from kluebook.tasks import all_tasks
from kluebook.training.checkpoints import model_entry, registered_models

SOURCE_SPLITS = {
    "generated": "dev (generated)",
    "official": "dev (KLUE v1.1)",
    "hub": "validation (klue/klue, v1)",
}
# The split of runs on the dev items with the data errata applied (`--set errata=<version>`).
CORRECTED_SPLIT = "dev (KLUE v1.1, errata {version} applied)"


def corrected_key(metric: str, erratum: str) -> str:
    """The cell key of a metric as an erratum corrects it (`Errata.corrected` of the records)."""
    return f"{metric}@{erratum}"


def record_split(record: RunRecord) -> str:
    """The split a run's numbers are on, as tables name it: its data source's, or the corrected
    dev items when data errata were applied to them."""
    errata = record.outcome.errata if record.outcome else None
    if errata and errata.applied:
        return CORRECTED_SPLIT.format(version=errata.version)
    return SOURCE_SPLITS.get(record.data_source, record.data_source)


def published_scores(table: str = "current") -> pd.DataFrame:
    """The published numbers of one table, long: model, task, metric, value, split, source."""
    frame = pd.read_csv(CONFIGS / "published_scores.csv")
    return frame[frame["table"] == table].reset_index(drop=True)


@cache
def published_sizes() -> dict[str, str]:
    """The size (base, large, …) of each model of the published tables, from models.yaml."""
    with open(CONFIGS / "models.yaml", encoding="utf-8") as handle:
        registry = yaml.safe_load(handle)
    sizes = {e["published"]: e["size"] for e in registered_models().values() if "published" in e}
    sizes.update({name: e["size"] for name, e in (registry.get("published_only") or {}).items()})
    return sizes


@dataclass
class Cell:
    """One number of a table: a published value, or the seeds of a reproduced configuration."""

    values: list[float]
    runs: list[tuple[int, str | None]] = field(default_factory=list)  # (seed, run page)
    stale: str = ""  # the inputs that changed since these runs were made ("" if current)
    not_pooled: int = 0  # the runs of the configuration made from other inputs
    interval: Interval | None = None  # 95% bootstrap interval (kluebook.results.uncertainty)
    no_interval: str = ""  # why a cell of several seeds has no interval
    degenerate: list[str] = field(default_factory=list)  # why its runs' answers are (`degenerate`)
    seed_replicates: list = field(default_factory=list, repr=False)  # per seed, resampled

    @property
    def mean(self) -> float:
        return statistics.mean(self.values)

    @property
    def sd(self) -> float | None:
        return statistics.stdev(self.values) if len(self.values) > 1 else None


@dataclass
class Row:
    """One row of the KLUE table: a published model, or a reproduced configuration."""

    label: str
    kind: str  # "published" or "reproduced"
    size: str
    split: str
    cells: dict[tuple[str, str], Cell]
    model: str = ""
    profile: str = ""
    data_source: str = ""
    config: str = DEFAULT_CONFIG
    source: str = ""
    method: str = DEFAULT_METHOD  # how its runs were made (`kluebook.methods`, by name)
    shots: int | None = None  # a prompted row's demonstrations before every query

    @property
    def is_default_config(self) -> bool:
        """Whether the row's runs used their profile's recipe (no sweep label, no --set)."""
        return self.config == DEFAULT_CONFIG

    @property
    def configuration(self) -> str:
        """How the row's runs were made, as pages name it (`configuration_text`)."""
        return configuration_text(self.method, self.config, self.shots)

    @property
    def published_name(self) -> str | None:
        return model_entry(self.model).get("published") if self.kind == "reproduced" else None

    def has_current(self, key: tuple[str, str]) -> bool:
        """Whether the row has cell `key` made by current code (only such cells are ranked)."""
        return key in self.cells and not self.cells[key].stale

    def is_ranked(self, key: tuple[str, str]) -> bool:
        """Whether cell `key` competes for the best marks: current, and of a ranked method
        (fine-tuned; prompted rows follow another protocol and are shown beside the table's
        ranking, never in it)."""
        return method_named(self.method).ranked and self.has_current(key)


def run_shots(record: RunRecord) -> int | None:
    """The demonstrations a prompted run showed before every query; None for a fine-tuned run."""
    return method_named(record.method).shots(record)


def method_text(method: str, shots: int | None) -> str:
    """`prompted, 5 shots` for a prompted run; "" for a fine-tuned one (the book's default)."""
    return method_named(method).label(shots)


def configuration_text(method: str, config: str, shots: int | None = None) -> str:
    """A configuration as pages name it: a prompted one by its method and shots first, then the
    other settings of its label (`prompted, 5 shots, dev_limit=20`); "" for a fine-tuned run of
    its profile's recipe."""
    parts = [] if config == DEFAULT_CONFIG else config.split(",")
    parts = [p for p in parts if not method_named(method).own_part(p)]
    return ", ".join(filter(None, [method_text(method, shots), *parts]))


def run_configuration(record: RunRecord) -> str:
    """How a run was made, as pages name it (`configuration_text`)."""
    return configuration_text(record.method, record.config, run_shots(record))


def model_order(model: str) -> tuple:
    known = list(registered_models())
    return (known.index(model), "") if model in known else (len(known), model)


def record_order(record: RunRecord) -> tuple:
    order = list(all_tasks())
    task = order.index(record.task) if record.task in order else len(order)
    return (task, record.profile, model_order(record.model), record.config, record.seed)


def record_values(record: RunRecord) -> list[tuple[str, float | None]]:
    """A run's numbers by cell key: its metrics, then each erratum's corrected values."""
    errata = record.outcome.errata
    corrected = errata.corrected.items() if errata else ()
    return [
        *record.outcome.metrics.items(),
        *(
            (corrected_key(metric, erratum), value)
            for erratum, values in corrected
            for metric, value in values.items()
        ),
    ]


def reproduced_rows(records: list[RunRecord], root: Path = ROOT) -> list[Row]:
    """One row per (profile, model, data source, configuration), its seeds pooled per metric
    (only runs made from the same inputs, see `pooled`)."""
    today = code_today(records)
    twins = same_answers(records)
    by_task: dict[tuple, dict] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if record.outcome is not None:
            key = (
                record.profile,
                record.model,
                record.data_source,
                record.config,
                record.method,
                run_shots(record),
                record_split(record),
            )
            by_task[key][record.task].append(record)
    rows = []
    for (profile, model, source, config, method, shots, split), tasks in by_task.items():
        cells: dict[tuple[str, str], Cell] = {}
        for task, mine in tasks.items():
            chosen, stale = pooled(mine, today)
            # Corrected values made under another errata version are stale, the official not.
            errata = next(filter(None, map(errata_stale, chosen)), "")
            corrected_stale = ", ".join(dict.fromkeys(filter(None, [*stale.split(", "), errata])))
            for record in chosen:
                for metric, value in record_values(record):
                    if value is None or (isinstance(value, float) and math.isnan(value)):
                        continue
                    official = metric in record.outcome.metrics
                    cell = cells.setdefault(
                        (task, metric),
                        Cell(
                            [],
                            stale=stale if official else corrected_stale,
                            not_pooled=len(mine) - len(chosen),
                        ),
                    )
                    cell.values.append(float(value))
                    cell.runs.append((record.seed, run_page(record, root)))
                reasons = degenerate_reasons(all_tasks()[task], record) + twins.get(id(record), [])
                for key in [k for k in cells if k[0] == task]:
                    cells[key].degenerate += [f"seed {record.seed}: {r}" for r in reasons]
            attach_intervals(cells, task, chosen, root)
        rows.append(
            Row(
                label=model,
                kind="reproduced",
                size=model_entry(model).get("size", "base"),
                split=split,
                cells=dict(cells),
                model=model,
                profile=profile,
                data_source=source,
                config=config,
                method=method,
                shots=shots,
            )
        )
    return sorted(
        rows, key=lambda r: (r.profile == "smoke", r.profile, model_order(r.model), r.config)
    )


def published_rows(published: pd.DataFrame) -> list[Row]:
    """One row per model of a published table, in the table's order."""
    rows = []
    for model, part in published.groupby("model", sort=False):
        cells = {(r.task, r.metric): Cell([float(r.value)]) for r in part.itertuples()}
        rows.append(
            Row(
                label=model,
                kind="published",
                size=published_sizes().get(model, "unknown"),
                split=str(part["split"].iloc[0]),
                cells=cells,
                source=str(part["source"].iloc[0]),
            )
        )
    return rows
