"""The labels of prediction lines that name one class each, checked against the class names,
and such lines made from a classifier's logits."""

from collections.abc import Collection, Sequence

import numpy as np
from scipy.special import softmax

from kluebook.common.errors import KluebookError


def predicted_labels(
    records: list[dict], predictions: dict, names: Collection[str], what: str = "label"
) -> list[str]:
    """Each gold record's predicted `label`, in order; a name not among `names` is an error
    naming the guid (`what` the class is called in it: label, relation)."""
    predicted = []
    for record in records:
        label = predictions[record["guid"]].get("label")
        if label not in names:
            raise KluebookError(f"{record['guid']}: unknown {what} {label!r}")
        predicted.append(label)
    return predicted


def label_lines(records: list[dict], logits, names: Sequence[str]) -> list[dict]:
    """A classifier's prediction lines: each record's guid, the class of its largest logit and
    that class's probability (the softmax over `names`, to four digits), the confidence the
    item browsers show."""
    probabilities = softmax(np.asarray(logits, dtype=np.float64), axis=-1)
    return [
        {
            "guid": r["guid"],
            "label": names[int(p.argmax())],
            "probability": round(float(p.max()), 4),
        }
        for r, p in zip(records, probabilities, strict=True)
    ]
