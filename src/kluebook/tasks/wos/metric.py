"""WoS dialogue state tracking: joint goal accuracy and turn-averaged slot F1 (see README.md here),
and the slot F1 pooled over turns that its name, "slot micro F1", promises: an alternative
statistic beside the official one, not a correction, since the official code does what the
trade-dst code it follows does (the naming erratum `wos-slot-f1-turn-mean`).

A state is a list of `domain-slot-value` strings compared by exact string match; the official code
works on the lists as given, so a duplicated string counts once per occurrence in slot F1.
"""

from collections.abc import Sequence


def joint_goal_accuracy(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> float:
    """Share of user turns whose predicted state equals the gold state as a set, x100."""
    _check_lengths(gold, pred)
    correct = sum(set(g) == set(p) for g, p in zip(gold, pred, strict=True))
    return 100.0 * correct / len(gold)


def turn_counts(gold: Sequence[str], pred: Sequence[str]) -> tuple[int, int, int]:
    """(true positives, false negatives, false positives) of one turn, as the official code counts
    them: a slot with a wrong value is one false positive (the predicted string) and one false
    negative (the gold string)."""
    true_positives = sum(g in pred for g in gold)
    return true_positives, len(gold) - true_positives, sum(p not in gold for p in pred)


def turn_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """F1 of one turn (`turn_counts`); an empty gold state scores 1 only when the prediction is
    empty too."""
    if not gold:
        return float(not pred)
    true_positives, false_negatives, false_positives = turn_counts(gold, pred)
    if true_positives == 0:
        return 0.0
    precision = true_positives / (true_positives + false_positives)
    recall = true_positives / (true_positives + false_negatives)
    return 2 * precision * recall / (precision + recall)


def slot_f1(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> float:
    """Mean of the per-turn F1 over all user turns (each turn weighs 1), x100."""
    _check_lengths(gold, pred)
    return 100.0 * sum(turn_f1(g, p) for g, p in zip(gold, pred, strict=True)) / len(gold)


def pooled_slot_f1(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> float:
    """Micro F1 over the slot strings of all user turns, their counts pooled (`turn_counts`), x100;
    100 when no turn has a gold or a predicted slot."""
    _check_lengths(gold, pred)
    counts = [turn_counts(g, p) for g, p in zip(gold, pred, strict=True)]
    true_positives, false_negatives, false_positives = (sum(c[i] for c in counts) for i in range(3))
    if true_positives + false_negatives + false_positives == 0:
        return 100.0
    return 100.0 * 2 * true_positives / (2 * true_positives + false_negatives + false_positives)


def _check_lengths(gold: Sequence, pred: Sequence) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold turns but {len(pred)} predicted turns")
    if not gold:
        raise ValueError("no turns to score")
