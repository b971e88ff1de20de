"""How well a ranked run's choice probabilities match how often it is right.

Each dev item gives the probabilities of its choices (the softmax of the scores the ranking
used) and its gold choice. Three measures, recorded beside the official metrics:

- expected calibration error (`ece`): the items binned by their top-label confidence (the
  probability of the choice ranked first) into `BINS` equal-width bins of [0, 1]; the mean over
  the items of the gap between their bin's accuracy and its mean confidence;
- Brier score (`brier`): the squared distance between the probabilities and the gold choice's
  one-hot vector, summed over the choices and averaged over the items (0 at best, 2 at worst);
- the reliability bins: per bin, its item count, mean confidence and accuracy (None where
  empty), from which the run page draws its reliability diagram.
"""

from collections.abc import Mapping, Sequence

import numpy as np

from kluebook.common.errors import KluebookError
from kluebook.tasks.prompt_answers import choice_probabilities
from kluebook.tasks.prompt_items import PromptItem

BINS = 10  # equal-width confidence bins of [0, 1]
DIGITS = 4  # a record keeps each figure to this many decimals


def calibration(probabilities: Sequence[Sequence[float]], gold: Sequence[int]) -> dict:
    """ECE, Brier score and reliability bins of items' choice probabilities (one row per item,
    each summing to 1) against their gold choices' indices; a tie in a row goes to the choice
    listed first, as the ranking breaks it."""
    p = np.asarray(probabilities, dtype=float)
    y = np.asarray(gold, dtype=int)
    if p.ndim != 2 or len(p) == 0 or len(y) != len(p):
        raise KluebookError("calibration needs one row of choice probabilities per gold choice")
    if ((y < 0) | (y >= p.shape[1])).any():
        raise KluebookError("a gold choice is not among the item's choices")
    confidence = p.max(axis=1)
    right = p.argmax(axis=1) == y
    which = np.minimum((confidence * BINS).astype(int), BINS - 1)
    bins, gap = [], 0.0
    for index in range(BINS):
        inside = which == index
        count = int(inside.sum())
        if count:
            mean, accuracy = confidence[inside].mean(), right[inside].mean()
            gap += count * abs(accuracy - mean)
            bins.append({"count": count, "confidence": _kept(mean), "accuracy": _kept(accuracy)})
        else:
            bins.append({"count": 0, "confidence": None, "accuracy": None})
    brier = ((p - np.eye(p.shape[1])[y]) ** 2).sum(axis=1).mean()
    return {"ece": _kept(gap / len(p)), "brier": _kept(brier), "bins": bins}


def gold_choices(items: Sequence[PromptItem]) -> list[int]:
    """The index of each item's gold answer among its choices."""
    missing = [item.key for item in items if item.answer not in item.choices]
    if missing:
        raise KluebookError(f"item {missing[0]!r}: its gold answer is none of its choices")
    return [item.choices.index(item.answer) for item in items]


def item_probabilities(
    items: Sequence[PromptItem], scores: Sequence[Mapping[str, float]]
) -> list[list[float]]:
    """Each item's choice probabilities, in the order of its choices, from its scores."""
    return [choice_probabilities(item.choices, s) for item, s in zip(items, scores, strict=True)]


def _kept(value) -> float:
    return round(float(value), DIGITS)
