"""YNAT: news headline topic classification (see README.md here)."""

from collections.abc import Iterable
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.data.klue_json import read_record_list, write_record_list
from kluebook.scoring.metric_forms import F1, class_counts
from kluebook.scoring.predicted_labels import predicted_labels
from kluebook.scoring.switches import NO_SWITCHES, Switches
from kluebook.tasks.interface import LineProblem, class_label_problem

from .metric import macro_f1

# The baseline's class order; the index of each label is its class id in this project.
LABELS = ("정치", "경제", "사회", "생활문화", "세계", "IT과학", "스포츠")
LABELS_EN = ("politics", "economy", "society", "culture/life", "world", "IT/science", "sports")
# The Hugging Face `klue/klue` ClassLabel order, remapped on load.
HUB_LABELS = ("IT과학", "경제", "사회", "생활문화", "세계", "스포츠", "정치")


def read_official(path: str | Path) -> list[dict]:
    """Records of an official YNAT file (full or reduced fields) as {guid, title, label}."""
    records = []
    for item in read_record_list(path, "YNAT", "headlines", ("guid", "title", "label")):
        if item["label"] not in LABELS:
            raise KluebookError(f"{path}: {item['guid']}: unknown label {item['label']!r}")
        records.append({"guid": item["guid"], "title": item["title"], "label": item["label"]})
    return records


# The official layout, with the reduced fields the project uses.
write_official = write_record_list


def from_hub(rows: Iterable[dict]) -> list[dict]:
    """Hub rows (integer labels in the hub order) as official records."""
    return [{"guid": r["guid"], "title": r["title"], "label": HUB_LABELS[r["label"]]} for r in rows]


def score(records: list[dict], predictions: dict, switches: Switches = NO_SWITCHES) -> dict:
    """Official macro F1 of {guid: {"label": name}} predictions against gold records."""
    predicted = predicted_labels(records, predictions, LABELS)
    return {"macro_f1": macro_f1([r["label"] for r in records], predicted)}


def resampling_statistics(records: list[dict], predictions: dict[str, dict]) -> dict:
    """Per-headline class counts, from which kluebook.scoring.bootstrap recomputes macro F1."""
    gold = [r["label"] for r in records]
    pred = [predictions[r["guid"]]["label"] for r in records]
    counts = class_counts(gold, pred, range(len(records)), len(records))
    return {"macro_f1": F1(**counts)}


def gold_predictions(records: list[dict], switches: Switches = NO_SWITCHES) -> list[dict]:
    """Each headline's gold topic as its predictions line (the format's worked example)."""
    return [{"guid": r["guid"], "label": r["label"]} for r in records]


def check_line(record: dict, row: dict) -> LineProblem | None:
    """A line's label: one of LABELS by name (the hub copy's ids are named as such)."""
    return class_label_problem(row, LABELS, HUB_LABELS)
