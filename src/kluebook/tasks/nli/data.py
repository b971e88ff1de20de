"""KLUE-NLI: entailment, contradiction or neutral for a premise-hypothesis pair.

Records: {guid, source, premise, hypothesis, gold_label}. The official train file calls the
`source` field `genre` (KLUE issue #41); it is read into `source`.
"""

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from kluebook.errors import KluebookError
from kluebook.json_files import read_json, write_json
from kluebook.metric_forms import Mean
from kluebook.tasks import NO_SWITCHES

from .metric import accuracy

# The baseline's class order; the index of each label is its class id in this project.
LABELS = ("entailment", "contradiction", "neutral")
# The Hugging Face `klue/klue` ClassLabel order, remapped on load.
HUB_LABELS = ("entailment", "neutral", "contradiction")
SOURCES = ("airbnb", "NSMC", "wikinews", "policy", "wikitree", "wikipedia")


def read_official(path: str | Path) -> list[dict]:
    """Records of an official KLUE-NLI file (train with `genre` or dev with `source`)."""
    data = read_json(path)
    if not isinstance(data, list):
        raise KluebookError(f"{path}: not a KLUE-NLI file (expected a JSON list of pairs)")
    records = []
    for position, item in enumerate(data):
        if not isinstance(item, dict) or not {"guid", "premise", "hypothesis", "gold_label"} <= (
            item.keys()
        ):
            raise KluebookError(
                f"{path}: not a KLUE-NLI file (record {position} lacks guid, premise, "
                "hypothesis or gold_label)"
            )
        if item["gold_label"] not in LABELS:
            raise KluebookError(f"{path}: {item['guid']}: unknown label {item['gold_label']!r}")
        records.append(
            {
                "guid": item["guid"],
                "source": item.get("source", item.get("genre")),
                "premise": item["premise"],
                "hypothesis": item["hypothesis"],
                "gold_label": item["gold_label"],
            }
        )
    return records


def write_official(records: Iterable[dict], path: str | Path) -> None:
    """Write records in the official KLUE-NLI layout, fields as given."""
    write_json(path, [dict(r) for r in records])


def from_hub(rows: Iterable[dict], label_names: Sequence[str] | None = None) -> list[dict]:
    """Hub rows (integer labels) as official records.

    Label ids follow `label_names`, by default the ClassLabel names of `rows` when it is a
    `datasets.Dataset` (old hub versions used the baseline order), else `HUB_LABELS`.
    """
    if label_names is None:
        features = getattr(rows, "features", None)
        label_names = features["label"].names if features is not None else HUB_LABELS
    if sorted(label_names) != sorted(LABELS):
        raise KluebookError(f"hub NLI labels {list(label_names)} are not {list(LABELS)}")
    records = []
    for r in rows:
        if not 0 <= r["label"] < len(label_names):
            raise KluebookError(f"{r['guid']}: hub label id {r['label']} out of range")
        records.append(
            {
                "guid": r["guid"],
                "source": r["source"],
                "premise": r["premise"],
                "hypothesis": r["hypothesis"],
                "gold_label": label_names[r["label"]],
            }
        )
    return records


def score(
    records: list[dict],
    predictions: dict[str, dict],
    switches: Mapping[str, object] = NO_SWITCHES,
) -> dict[str, float]:
    """Official accuracy of {guid: {"label": name}} predictions against gold records."""
    predicted = []
    for record in records:
        label = predictions[record["guid"]].get("label")
        if label not in LABELS:
            raise KluebookError(f"{record['guid']}: unknown label {label!r}")
        predicted.append(label)
    return {"accuracy": accuracy([r["gold_label"] for r in records], predicted)}


def gold_predictions(
    records: list[dict], switches: Mapping[str, object] = NO_SWITCHES
) -> list[dict]:
    """The prediction lines that reproduce the gold: a worked example of the file format."""
    return [{"guid": r["guid"], "label": r["gold_label"]} for r in records]


def resampling_statistics(records: list[dict], predictions: dict[str, dict]) -> dict:
    """Whether each pair is right, from which kluebook.bootstrap recomputes the accuracy."""
    right = [predictions[r["guid"]]["label"] == r["gold_label"] for r in records]
    return {"accuracy": Mean(np.array(right, dtype=float), np.ones(len(right)))}
