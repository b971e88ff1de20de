"""DP: UAS and LAS as the KLUE baseline computes them (see README.md here).

The headline numbers are macro F1 scores, not attachment accuracies:
- UAS: each eojeol's head index (0 = root) is a class; sklearn macro F1 over the head indices
  seen in gold or prediction.
- LAS: dependency labels at baseline list index >= 15 are merged into one OTHERS class (gold and
  prediction); an eojeol with a wrong predicted head gets the predicted label PAD, a class that
  occurs only in predictions and so adds an F1 of 0 to the average; then sklearn macro F1.
The micro variants (the baseline's `uas_micro_f1`, `las_micro_f1`) are the matching accuracies:
head accuracy, and labelled accuracy after the OTHERS merge. `las_wrong_heads_as_errors` is the
LAS macro F1 corrected for the PAD class (erratum `dp-las-pad`): over the same merged classes, an
eojeol counts as a hit of its class only when both its head and its label are right; otherwise
it is a miss of its gold class and a false alarm of its predicted class (a wrong head included),
and no artificial class enters the average.
"""

from collections.abc import Sequence

from sklearn.metrics import accuracy_score, f1_score

# The baseline's dependency-label list, ordered by frequency; the index matters.
DEPRELS = (
    *("NP", "NP_AJT", "VP", "NP_SBJ", "VP_MOD", "NP_OBJ", "AP", "NP_CNJ", "NP_MOD", "VNP"),
    *("DP", "VP_AJT", "VNP_MOD", "NP_CMP", "VP_SBJ", "VP_CMP", "VP_OBJ", "VNP_CMP", "AP_MOD"),
    *("X_AJT", "VP_CNJ", "VNP_AJT", "IP", "X", "X_SBJ", "VNP_OBJ", "VNP_SBJ", "X_OBJ", "AP_AJT"),
    *("L", "X_MOD", "X_CNJ", "VNP_CNJ", "X_CMP", "AP_CMP", "AP_SBJ", "R", "NP_SVJ"),
)
OTHERS_FROM_INDEX = 15
OTHERS = "OTHERS"
WRONG_HEAD = "PAD"
_SCORED_LABEL = {
    label: (label if index < OTHERS_FROM_INDEX else OTHERS) for index, label in enumerate(DEPRELS)
}


def _check_lengths(*columns: Sequence) -> None:
    if len({len(column) for column in columns}) > 1:
        raise ValueError(
            f"gold and predicted columns differ in length: {[len(c) for c in columns]}"
        )


def _scored_label(label: str) -> str:
    if label not in _SCORED_LABEL:
        raise ValueError(f"unknown dependency label {label!r}")
    return _SCORED_LABEL[label]


def las_classes(
    gold_heads: Sequence[int],
    pred_heads: Sequence[int],
    gold_deprels: Sequence[str],
    pred_deprels: Sequence[str],
) -> tuple[list[str], list[str]]:
    """Gold and predicted LAS classes: rare labels merged to OTHERS, wrong heads predicted PAD."""
    _check_lengths(gold_heads, pred_heads, gold_deprels, pred_deprels)
    gold = [_scored_label(label) for label in gold_deprels]
    pred = [
        _scored_label(label) if gold_head == pred_head else WRONG_HEAD
        for gold_head, pred_head, label in zip(gold_heads, pred_heads, pred_deprels, strict=True)
    ]
    return gold, pred


def uas_macro_f1(gold_heads: Sequence[int], pred_heads: Sequence[int]) -> float:
    """Macro F1 with the head index as the class, x100."""
    _check_lengths(gold_heads, pred_heads)
    return 100.0 * float(f1_score(gold_heads, pred_heads, average="macro", zero_division=0))


def uas_micro_f1(gold_heads: Sequence[int], pred_heads: Sequence[int]) -> float:
    """Unlabelled attachment accuracy, x100."""
    _check_lengths(gold_heads, pred_heads)
    return 100.0 * float(accuracy_score(gold_heads, pred_heads))


def las_macro_f1(
    gold_heads: Sequence[int],
    pred_heads: Sequence[int],
    gold_deprels: Sequence[str],
    pred_deprels: Sequence[str],
) -> float:
    """Macro F1 over the LAS classes (OTHERS merge, PAD for wrong heads), x100."""
    gold, pred = las_classes(gold_heads, pred_heads, gold_deprels, pred_deprels)
    return 100.0 * float(f1_score(gold, pred, average="macro", zero_division=0))


# Stands for "no class" in the pairs of `attachment_pairs`: never one of the classes averaged.
NO_CLASS = ""


def attachment_pairs(
    gold_heads: Sequence[int],
    pred_heads: Sequence[int],
    gold_deprels: Sequence[str],
    pred_deprels: Sequence[str],
) -> tuple[list[str], list[str], list[str]]:
    """Gold and predicted classes to score labelled attachment on, and the classes to average
    (the merged labels seen in gold or prediction). An eojeol with the right head is one pair of
    its merged labels; one with a wrong head is two, (gold class, NO_CLASS) and (NO_CLASS,
    predicted class): a miss of the one and a false alarm of the other, even when they agree."""
    _check_lengths(gold_heads, pred_heads, gold_deprels, pred_deprels)
    pairs = []
    for gold_head, pred_head, gold_label, pred_label in zip(
        gold_heads, pred_heads, gold_deprels, pred_deprels, strict=True
    ):
        right, guess = _scored_label(gold_label), _scored_label(pred_label)
        pairs += (
            [(right, guess)] if gold_head == pred_head else [(right, NO_CLASS), (NO_CLASS, guess)]
        )
    gold, pred = [g for g, _ in pairs], [p for _, p in pairs]
    return gold, pred, sorted((set(gold) | set(pred)) - {NO_CLASS})


def las_wrong_heads_as_errors(
    gold_heads: Sequence[int],
    pred_heads: Sequence[int],
    gold_deprels: Sequence[str],
    pred_deprels: Sequence[str],
) -> float:
    """Labelled-attachment macro F1 over the merged label classes seen in gold or prediction,
    x100: an eojeol with the right head and label is a true positive of its class; any other is
    a false negative of its gold class and a false positive of its predicted class
    (`attachment_pairs`). No class of wrong heads is averaged in."""
    gold, pred, classes = attachment_pairs(gold_heads, pred_heads, gold_deprels, pred_deprels)
    return 100.0 * float(f1_score(gold, pred, labels=classes, average="macro", zero_division=0))


def las_micro_f1(
    gold_heads: Sequence[int],
    pred_heads: Sequence[int],
    gold_deprels: Sequence[str],
    pred_deprels: Sequence[str],
) -> float:
    """Labelled attachment accuracy over the LAS classes (rare labels all count as OTHERS), x100."""
    gold, pred = las_classes(gold_heads, pred_heads, gold_deprels, pred_deprels)
    return 100.0 * float(accuracy_score(gold, pred))


def dp_scores(
    gold_heads: Sequence[int],
    pred_heads: Sequence[int],
    gold_deprels: Sequence[str],
    pred_deprels: Sequence[str],
) -> dict[str, float]:
    """The headline UAS/LAS macro F1, the baseline's micro variants and the LAS corrected for
    the PAD class (wrong heads as errors of their classes), over all eojeols."""
    columns = (gold_heads, pred_heads, gold_deprels, pred_deprels)
    return {
        "uas": uas_macro_f1(gold_heads, pred_heads),
        "las": las_macro_f1(*columns),
        "uas_micro_f1": uas_micro_f1(gold_heads, pred_heads),
        "las_micro_f1": las_micro_f1(*columns),
        "las_wrong_heads_as_errors": las_wrong_heads_as_errors(*columns),
    }
