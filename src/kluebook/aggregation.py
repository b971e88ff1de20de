"""The numbers of the tables: published rows from configs/published_scores.csv (the KLUE
README's test-set scores, with their source) and reproduced rows from the run records (a row per
profile, model, data source and configuration; its seeds pooled per metric).

A cell pools only the runs of its configuration made from one set of inputs: the current code
and notebook of their task where there are such runs (else the newest runs, marked stale);
the others are counted, never averaged in."""

import json
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pandas as pd
import yaml

from kluebook.checkpoints import model_entry, registered_models
from kluebook.links import run_page
from kluebook.paths import CONFIGS, ROOT
from kluebook.records import current_code, stale_inputs
from kluebook.tasks import all_tasks
from kluebook.uncertainty import attach_intervals

SOURCE_SPLITS = {
    "generated": "dev (generated)",
    "official": "dev (KLUE v1.1)",
    "hub": "validation (klue/klue, v1)",
}


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
    interval: dict | None = None  # 95% bootstrap interval {low, high} (kluebook.uncertainty)
    no_interval: str = ""  # why a cell of several seeds has no interval
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
    config: str = "default"
    source: str = ""

    @property
    def published_name(self) -> str | None:
        return model_entry(self.model).get("published") if self.kind == "reproduced" else None

    def has_current(self, key: tuple[str, str]) -> bool:
        """Whether the row has cell `key` made by current code (only such cells are ranked)."""
        return key in self.cells and not self.cells[key].stale


def model_order(model: str) -> tuple:
    known = list(registered_models())
    return (known.index(model), "") if model in known else (len(known), model)


def record_order(record: dict) -> tuple:
    order = list(all_tasks())
    task = order.index(record["task"]) if record["task"] in order else len(order)
    return (
        task,
        record["profile"],
        model_order(record["model"]),
        record.get("config", ""),
        record["seed"],
    )


def run_key(record: dict) -> tuple:
    """What names one run: a success and a later failure of it share it."""
    return tuple(record.get(k, "default") for k in ("task", "profile", "model", "config", "seed"))


def code_today(records: list[dict]) -> dict[str, dict | None]:
    """`records.current_code` of each task the records are of (None for a task that is gone)."""
    tasks = all_tasks()
    names = {r["task"] for r in records}
    return {name: current_code(tasks[name]) if name in tasks else None for name in names}


def stale_reason(record: dict, today: dict[str, dict | None]) -> str:
    """What changed since a record was made ("" for a current one), e.g. "task code"."""
    return ", ".join(stale_inputs(record, today.get(record["task"])))


def _made_from(record: dict) -> str:
    """The inputs a record was made from, apart from its seed's parameters: runs that share
    them are pooled."""
    made = {k: v for k, v in (record.get("inputs") or {}).items() if k != "parameters"}
    return json.dumps(made, sort_keys=True)


def _newest(batch: list[dict]) -> str:
    return max(r.get("finished_at", "") for r in batch)


def pooled(mine: list[dict], today: dict[str, dict | None]) -> tuple[list[dict], str]:
    """The runs of one configuration and task that a cell pools, and why they are stale (""
    when current): those made from today's inputs, else the newest runs' inputs."""
    batches: dict[str, list[dict]] = defaultdict(list)
    for record in mine:
        batches[_made_from(record)].append(record)
    current = [b for b in batches.values() if not stale_reason(b[0], today)]
    choice = max(current or batches.values(), key=_newest)
    return sorted(choice, key=lambda r: r["seed"]), stale_reason(choice[0], today)


def reproduced_rows(records: list[dict], root: Path = ROOT) -> list[Row]:
    """One row per (profile, model, data source, configuration), its seeds pooled per metric
    (only runs made from the same inputs, see `pooled`)."""
    today = code_today(records)
    by_task: dict[tuple, dict] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if record.get("status") != "succeeded":
            continue
        key = (
            record["profile"],
            record["model"],
            record["data_source"],
            record.get("config", "default"),
        )
        by_task[key][record["task"]].append(record)
    rows = []
    for (profile, model, source, config), tasks in by_task.items():
        cells: dict[tuple[str, str], Cell] = {}
        for task, mine in tasks.items():
            chosen, stale = pooled(mine, today)
            for record in chosen:
                for metric, value in (record.get("metrics") or {}).items():
                    if value is None or (isinstance(value, float) and math.isnan(value)):
                        continue
                    cell = cells.setdefault(
                        (task, metric), Cell([], stale=stale, not_pooled=len(mine) - len(chosen))
                    )
                    cell.values.append(float(value))
                    cell.runs.append((record["seed"], run_page(record, root)))
            attach_intervals(cells, task, chosen, root)
        rows.append(
            Row(
                label=model,
                kind="reproduced",
                size=model_entry(model).get("size", "base"),
                split=SOURCE_SPLITS.get(source, source),
                cells=dict(cells),
                model=model,
                profile=profile,
                data_source=source,
                config=config,
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
