"""The KLUE table's references and footnotes: the published tables and what is known of their
split, each published model's paper and checkpoint, and the notes of metrics that are not what
their names suggest (configs/published_tables.yaml, models.yaml, metric_notes.yaml)."""

from functools import cache

import pandas as pd
import yaml

from kluebook.common.paths import CONFIGS
from kluebook.training.checkpoints import registered_models


def _config(name: str) -> dict:
    with open(CONFIGS / name, encoding="utf-8") as handle:
        return yaml.safe_load(handle) or {}


@cache
def published_tables() -> dict[str, dict]:
    """Each table of published_scores.csv (`current`, `original`) by its `source` text: its
    address, name and what is known of its split (configs/published_tables.yaml)."""
    tables = _config("published_tables.yaml")
    frame = pd.read_csv(CONFIGS / "published_scores.csv")
    return {
        source: {"table": table, **tables.get(table, {})}
        for table, source in frame.groupby("table", sort=False)["source"].first().items()
    }


@cache
def model_references() -> dict[str, dict]:
    """Each published model's paper and checkpoint or project page (models.yaml, `references`),
    with the parameter count of its released checkpoint where models.yaml has one."""
    references = {name: dict(ref) for name, ref in _config("models.yaml")["references"].items()}
    for entry in registered_models().values():
        if entry.get("published") in references and "parameters" in entry:
            references[entry["published"]]["parameters"] = entry["parameters"]
    return references


@cache
def metric_notes() -> dict[tuple[str, str], str]:
    """(task, metric) -> the footnote of a metric that is not what its name suggests."""
    notes = _config("metric_notes.yaml")
    return {(task, key): note for task, metrics in notes.items() for key, note in metrics.items()}
