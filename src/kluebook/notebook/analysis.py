"""Small analyses the task notebooks share: model-free baselines and display tables.

Everything here works on plain labels, pairs and reports, and knows no task.
"""

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

import pandas as pd

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

Key = TypeVar("Key", bound=Hashable)
Label = TypeVar("Label", bound=Hashable)

# The summary rows of a classification report (scikit-learn's or seqeval's `output_dict`).
SUMMARY_ROWS = ("accuracy", "micro avg", "macro avg", "weighted avg", "samples avg")


def majority_label(train_labels: Iterable[Label]) -> Label:
    """The most frequent of the training labels; a tie goes to the label seen first."""
    counts = Counter(train_labels)
    if not counts:
        raise ValueError("majority_label needs at least one training label")
    return counts.most_common(1)[0][0]


def majority_by_key(pairs: Iterable[tuple[Key, Label]]) -> dict[Key, Label]:
    """Each key's most frequent label among (key, label) pairs; a tie goes to the one seen first."""
    counts: dict[Key, Counter] = {}
    for key, label in pairs:
        counts.setdefault(key, Counter())[label] += 1
    return {key: label_counts.most_common(1)[0][0] for key, label_counts in counts.items()}


def class_report_table(report: Mapping, labels: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per class of a classification report dict, support as int, scores to 3 places.

    With `labels`, the rows are those classes in that order (a class the report lacks has no
    scores and a support of 0); without, every class the report has, without its summary rows.
    """
    table = pd.DataFrame(report).T
    if labels is None:
        table = table.drop(list(SUMMARY_ROWS), errors="ignore")
    else:
        table = table.reindex(list(labels))
    return table.assign(support=table["support"].fillna(0).astype(int)).round(
        {"precision": 3, "recall": 3, "f1-score": 3}
    )


def token_table(tokenizer: "PreTrainedTokenizerBase", encoded: Mapping[str, list]) -> pd.DataFrame:
    """An encoding token by token: each token, its id and, if the model takes them, segment ids."""
    rows = {
        "token": tokenizer.convert_ids_to_tokens(encoded["input_ids"]),
        "id": encoded["input_ids"],
    }
    if "token_type_ids" in tokenizer.model_input_names and "token_type_ids" in encoded:
        rows["segment"] = encoded["token_type_ids"]
    return pd.DataFrame(rows).T
