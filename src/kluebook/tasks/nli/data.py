"""KLUE-NLI: entailment, contradiction or neutral for a premise-hypothesis pair.

Records: {guid, source, premise, hypothesis, gold_label}. The official train file calls the
`source` field `genre` (KLUE issue #41); it is read into `source`.
"""

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from kluebook.common.errors import KluebookError
from kluebook.data.klue_json import read_record_list, write_record_list
from kluebook.scoring.metric_forms import Mean
from kluebook.scoring.predicted_labels import predicted_labels
from kluebook.scoring.switches import NO_SWITCHES, Switches
from kluebook.tasks.interface import LineProblem, class_label_problem

from .metric import accuracy

# The baseline's class order; the index of each label is its class id in this project.
LABELS = ("entailment", "contradiction", "neutral")
# The Hugging Face `klue/klue` ClassLabel order, remapped on load.
HUB_LABELS = ("entailment", "neutral", "contradiction")
SOURCES = ("airbnb", "NSMC", "wikinews", "policy", "wikitree", "wikipedia")


def read_official(path: str | Path) -> list[dict]:
    """Records of an official KLUE-NLI file (train with `genre` or dev with `source`)."""
    records = []
    fields = ("guid", "premise", "hypothesis", "gold_label")
    for item in read_record_list(path, "KLUE-NLI", "pairs", fields):
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


write_official = write_record_list  # the official layout, fields as given


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


def score(records: list[dict], predictions: dict, switches: Switches = NO_SWITCHES) -> dict:
    """Official accuracy of {guid: {"label": name}} predictions against gold records."""
    predicted = predicted_labels(records, predictions, LABELS)
    return {"accuracy": accuracy([r["gold_label"] for r in records], predicted)}


def resampling_statistics(records: list[dict], predictions: dict[str, dict]) -> dict:
    """Whether each pair is right, from which kluebook.scoring.bootstrap recomputes the accuracy."""
    right = [predictions[r["guid"]]["label"] == r["gold_label"] for r in records]
    return {"accuracy": Mean(np.array(right, dtype=float), np.ones(len(right)))}


def gold_predictions(records: list[dict], switches: Switches = NO_SWITCHES) -> list[dict]:
    """Each pair's gold label as its predictions line (the format's worked example)."""
    return [{"guid": r["guid"], "label": r["gold_label"]} for r in records]


def check_line(record: dict, row: dict) -> LineProblem | None:
    """A line's label: one of LABELS by name (the hub copy's ids are named as such)."""
    return class_label_problem(row, LABELS, HUB_LABELS)
