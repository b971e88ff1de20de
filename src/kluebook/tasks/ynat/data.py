"""YNAT: news headline topic classification (see README.md here)."""

from collections.abc import Iterable, Mapping
from pathlib import Path

from kluebook.errors import KluebookError
from kluebook.json_files import read_json, write_json
from kluebook.metric_forms import F1, class_counts
from kluebook.tasks import NO_SWITCHES

from .metric import macro_f1

# The baseline's class order; the index of each label is its class id in this project.
LABELS = ("정치", "경제", "사회", "생활문화", "세계", "IT과학", "스포츠")
LABELS_EN = ("politics", "economy", "society", "culture/life", "world", "IT/science", "sports")
# The Hugging Face `klue/klue` ClassLabel order, remapped on load.
HUB_LABELS = ("IT과학", "경제", "사회", "생활문화", "세계", "스포츠", "정치")


def read_official(path: str | Path) -> list[dict]:
    """Records of an official YNAT file (full or reduced fields) as {guid, title, label}."""
    data = read_json(path)
    if not isinstance(data, list):
        raise KluebookError(f"{path}: not a YNAT file (expected a JSON list of headlines)")
    records = []
    for position, item in enumerate(data):
        if not isinstance(item, dict) or not {"guid", "title", "label"} <= item.keys():
            raise KluebookError(
                f"{path}: not a YNAT file (record {position} lacks guid, title or label)"
            )
        if item["label"] not in LABELS:
            raise KluebookError(f"{path}: {item['guid']}: unknown label {item['label']!r}")
        records.append({"guid": item["guid"], "title": item["title"], "label": item["label"]})
    return records


def write_official(records: Iterable[dict], path: str | Path) -> None:
    """Write records in the official YNAT layout (the reduced fields the project uses)."""
    write_json(path, [dict(r) for r in records])


def from_hub(rows: Iterable[dict]) -> list[dict]:
    """Hub rows (integer labels in the hub order) as official records."""
    return [{"guid": r["guid"], "title": r["title"], "label": HUB_LABELS[r["label"]]} for r in rows]


def score(
    records: list[dict],
    predictions: dict[str, dict],
    switches: Mapping[str, object] = NO_SWITCHES,
) -> dict[str, float]:
    """Official macro F1 of {guid: {"label": name}} predictions against gold records."""
    predicted = []
    for record in records:
        label = predictions[record["guid"]].get("label")
        if label not in LABELS:
            raise KluebookError(f"{record['guid']}: unknown label {label!r}")
        predicted.append(label)
    return {"macro_f1": macro_f1([r["label"] for r in records], predicted)}


def gold_predictions(
    records: list[dict], switches: Mapping[str, object] = NO_SWITCHES
) -> list[dict]:
    """The prediction lines that reproduce the gold: a worked example of the file format."""
    return [{"guid": r["guid"], "label": r["label"]} for r in records]


def resampling_statistics(records: list[dict], predictions: dict[str, dict]) -> dict:
    """Per-headline class counts, from which kluebook.bootstrap recomputes macro F1."""
    gold = [r["label"] for r in records]
    pred = [predictions[r["guid"]]["label"] for r in records]
    counts = class_counts(gold, pred, range(len(records)), len(records))
    return {"macro_f1": F1(**counts)}
