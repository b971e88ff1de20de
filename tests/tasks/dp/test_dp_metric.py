import random
from collections import Counter

import pytest
from sklearn.metrics import f1_score

from kluebook.tasks.dp.metric import (
    _SCORED_LABEL,
    DEPRELS,
    OTHERS,
    WRONG_HEAD,
    attachment_pairs,
    dp_scores,
    las_classes,
    las_macro_f1,
    las_micro_f1,
    las_wrong_heads_as_errors,
    uas_macro_f1,
)


def test_spec_sanity_example():
    gold_heads, pred_heads = [2, 0, 2, 2], [2, 0, 1, 2]
    labels = ["NP_SBJ", "VP", "NP", "VP_CMP"]  # VP_CMP is at list index 15: OTHERS
    # UAS classes = head indices. 2: gold 3, predicted 2, correct 2 -> P 1, R 2/3, F 4/5;
    # 0: F 1; 1: predicted once, never gold -> F 0.  Macro (4/5 + 1 + 0) / 3 = 3/5; micro 3/4.
    # LAS classes: gold NP_SBJ VP NP OTHERS, predicted NP_SBJ VP PAD OTHERS (head of word 3
    # wrong). NP_SBJ, VP, OTHERS: F 1; NP: R 0, F 0; PAD: P 0, F 0 -> macro 3/5; micro 3/4.
    # Wrong heads as errors (the erratum): NP has TP 0, FN 1 and FP 1 (the wrong-head word
    # still claims NP): F 0; NP_SBJ, VP, OTHERS: F 1 -> (0 + 1 + 1 + 1) / 4 = 3/4.
    assert dp_scores(gold_heads, pred_heads, labels, labels) == pytest.approx(
        {
            "uas": 60.0,
            "las": 60.0,
            "uas_micro_f1": 75.0,
            "las_micro_f1": 75.0,
            "las_wrong_heads_as_errors": 75.0,
        }
    )


def test_rare_labels_are_merged_into_others_from_index_15():
    assert DEPRELS[14] == "VP_SBJ" and DEPRELS[15] == "VP_CMP" and len(DEPRELS) == 38
    heads = [0, 1]
    # Two different rare labels (index 15 and 19) both become OTHERS: counted as correct.
    assert las_micro_f1(heads, heads, ["VP", "VP_CMP"], ["VP", "X_AJT"]) == 100.0
    assert las_macro_f1(heads, heads, ["VP", "VP_CMP"], ["VP", "X_AJT"]) == 100.0
    # VP_SBJ (index 14) is not merged: predicting VP_CMP for it is wrong.
    assert las_micro_f1(heads, heads, ["VP", "VP_SBJ"], ["VP", "VP_CMP"]) == 50.0
    gold, pred = las_classes(heads, heads, ["VP_SBJ", "R"], ["VP_CMP", "NP_SVJ"])
    assert (gold, pred) == (["VP_SBJ", OTHERS], [OTHERS, OTHERS])


def test_a_wrong_head_makes_the_label_a_pad_class_that_stays_in_the_average():
    gold_heads, pred_heads = [2, 0], [0, 0]
    labels = ["NP_SBJ", "VP"]
    assert las_classes(gold_heads, pred_heads, labels, labels)[1] == [WRONG_HEAD, "VP"]
    # NP_SBJ: R 0, F 0; VP: F 1; PAD (predicted only): F 0 -> (0 + 1 + 0) / 3 = 1/3.
    assert las_macro_f1(gold_heads, pred_heads, labels, labels) == pytest.approx(100 / 3)
    # UAS: class 2 F 0; class 0: gold 1, predicted 2, correct 1 -> P 1/2, R 1, F 2/3 -> 1/3.
    assert uas_macro_f1(gold_heads, pred_heads) == pytest.approx(100 / 3)


def test_gold_as_prediction_scores_100_including_las_macro():
    heads = [2, 0, 2, 5, 2]
    labels = ["NP_SBJ", "VP", "AP", "R", "X_CMP"]
    assert set(dp_scores(heads, heads, labels, labels).values()) == {100.0}


def test_unknown_label_and_length_mismatch_are_errors():
    with pytest.raises(ValueError, match="unknown dependency label 'SUBJ'"):
        las_macro_f1([0], [0], ["VP"], ["SUBJ"])
    with pytest.raises(ValueError):
        uas_macro_f1([0, 1], [0])


# The corrected LAS (erratum dp-las-pad): per merged class, TP = right head and right label;
# every other eojeol is a FN of its gold class and a FP of its predicted class; F1 = 2TP / (2TP +
# FP + FN), averaged over the classes seen in gold or prediction.


def test_corrected_las_one_wrong_head_with_the_right_label():
    gold_heads, pred_heads = [2, 3, 0], [3, 3, 0]  # word 1's head is wrong
    labels = ["NP", "NP", "VP"]
    # Corrected: NP TP 1 (word 2), FN 1 and FP 1 (word 1) -> 2 / (2 + 1 + 1) = 1/2; VP 1.
    # (1/2 + 1) / 2 = 3/4.
    assert las_wrong_heads_as_errors(gold_heads, pred_heads, labels, labels) == pytest.approx(75.0)
    # Official: word 1 predicted PAD. NP TP 1, FN 1, FP 0 -> P 1, R 1/2, F 2/3; VP 1; PAD 0:
    # (2/3 + 1 + 0) / 3 = 5/9, which is (2/3 + 1) / 2 x 2/3: the zero class rescales by k/(k+1).
    assert las_macro_f1(gold_heads, pred_heads, labels, labels) == pytest.approx(500 / 9)
    # Per class (NP, VP): 1/2 and 1, where the labels alone score 1 and 1.
    gold, pred, classes = attachment_pairs(gold_heads, pred_heads, labels, labels)
    assert classes == ["NP", "VP"]
    assert list(f1_score(gold, pred, labels=classes, average=None)) == [0.5, 1.0]


def test_corrected_las_one_wrong_head_with_a_wrong_label():
    gold_heads, pred_heads = [2, 3, 0], [3, 3, 0]  # word 1's head is wrong ...
    gold_labels = ["NP_SBJ", "NP_OBJ", "VP"]
    pred_labels = ["NP_OBJ", "NP_OBJ", "VP"]  # ... and so is its label
    # Corrected: NP_SBJ TP 0, FN 1 -> 0; NP_OBJ TP 1 (word 2), FP 1 (word 1) -> 2 / 3; VP 1.
    # (0 + 2/3 + 1) / 3 = 5/9: word 1 is one miss and one false alarm, never counted twice.
    corrected = las_wrong_heads_as_errors(gold_heads, pred_heads, gold_labels, pred_labels)
    assert corrected == pytest.approx(500 / 9)
    # Official: word 1 predicted PAD. NP_SBJ 0; NP_OBJ TP 1, no FP -> 1; VP 1; PAD 0 -> 2/4.
    assert las_macro_f1(gold_heads, pred_heads, gold_labels, pred_labels) == pytest.approx(50.0)


def test_corrected_las_wrong_head_with_a_label_merged_into_others():
    gold_heads, pred_heads = [2, 4, 4, 0], [2, 3, 4, 0]  # word 2's head is wrong
    gold_labels = ["X_AJT", "AP_MOD", "NP_OBJ", "VP"]  # X_AJT (19), AP_MOD (18): OTHERS
    pred_labels = ["R", "L", "NP_OBJ", "VP"]  # R (36), L (29): OTHERS too
    # Merged, the labels all agree. Corrected: OTHERS TP 1 (word 1), FN 1 and FP 1 (word 2) ->
    # 2 / 4 = 1/2; NP_OBJ 1; VP 1. (1/2 + 1 + 1) / 3 = 5/6.
    corrected = las_wrong_heads_as_errors(gold_heads, pred_heads, gold_labels, pred_labels)
    assert corrected == pytest.approx(250 / 3)
    # Official: word 2 predicted PAD. OTHERS TP 1, FN 1 -> 2/3; NP_OBJ 1; VP 1; PAD 0 ->
    # (2/3 + 2) / 4 = 2/3.
    assert las_macro_f1(gold_heads, pred_heads, gold_labels, pred_labels) == pytest.approx(200 / 3)


def _random_parse(rng: random.Random, size: int, head_error: float, label_error: float):
    gold_heads = [rng.randrange(size + 1) for _ in range(size)]
    gold_labels = [rng.choice(DEPRELS[:20]) for _ in range(size)]
    pred_heads = [h if rng.random() > head_error else rng.randrange(size + 1) for h in gold_heads]
    pred_labels = [g if rng.random() > label_error else rng.choice(DEPRELS) for g in gold_labels]
    return gold_heads, pred_heads, gold_labels, pred_labels


def _counted(gold_heads, pred_heads, gold_labels, pred_labels) -> float:
    """The corrected LAS counted by hand: TP, FP and FN per merged class."""
    tp, fp, fn = Counter(), Counter(), Counter()
    for gh, ph, gl, pl in zip(gold_heads, pred_heads, gold_labels, pred_labels, strict=True):
        g, p = _SCORED_LABEL[gl], _SCORED_LABEL[pl]
        if gh == ph and g == p:
            tp[g] += 1
        else:
            fn[g] += 1
            fp[p] += 1
    classes = set(tp) | set(fp) | set(fn)
    return 100 * sum(2 * tp[c] / (2 * tp[c] + fp[c] + fn[c]) for c in classes) / len(classes)


@pytest.mark.parametrize("seed", range(40))
def test_corrected_las_per_class_never_above_the_label_only_f1(seed):
    rng = random.Random(seed)
    columns = _random_parse(rng, rng.randrange(1, 60), rng.random(), rng.random() / 2)
    gold, pred, classes = attachment_pairs(*columns)
    per_class = f1_score(gold, pred, labels=classes, average=None, zero_division=0)
    merged = [[_SCORED_LABEL[label] for label in labels] for labels in columns[2:]]
    label_only = f1_score(*merged, labels=classes, average=None, zero_division=0)
    assert all(per_class <= label_only + 1e-12)
    assert las_wrong_heads_as_errors(*columns) == pytest.approx(_counted(*columns))
    assert las_wrong_heads_as_errors(*columns) <= 100 * label_only.mean() + 1e-9
    # The official value is the PAD-free average of its own classes x k/(k+1) when a head is
    # wrong: PAD adds one zero class, it does not count an eojeol twice.
    official_gold, official_pred = las_classes(*columns)
    real = sorted((set(official_gold) | set(official_pred)) - {WRONG_HEAD})
    without_pad = f1_score(official_gold, official_pred, labels=real, average="macro")
    share = len(real) / (len(real) + 1) if WRONG_HEAD in official_pred else 1.0
    assert las_macro_f1(*columns) == pytest.approx(100 * without_pad * share)


@pytest.mark.parametrize("seed", range(20))
def test_corrected_las_with_every_head_right_is_the_label_only_f1(seed):
    rng = random.Random(seed)
    gold_heads, _, gold_labels, pred_labels = _random_parse(rng, rng.randrange(1, 60), 0, 0.5)
    columns = (gold_heads, gold_heads, gold_labels, pred_labels)
    gold, pred, classes = attachment_pairs(*columns)
    merged = [[_SCORED_LABEL[label] for label in labels] for labels in columns[2:]]
    assert list(f1_score(gold, pred, labels=classes, average=None)) == pytest.approx(
        list(f1_score(*merged, labels=classes, average=None))
    )
    assert las_wrong_heads_as_errors(*columns) == pytest.approx(las_macro_f1(*columns))
