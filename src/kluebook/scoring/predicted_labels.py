"""The labels of prediction lines that name one class each, checked against the class names."""

from collections.abc import Collection

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
