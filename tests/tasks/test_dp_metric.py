import pytest

from kluebook.tasks.dp.metric import (
    DEPRELS,
    OTHERS,
    WRONG_HEAD,
    dp_scores,
    las_classes,
    las_macro_f1,
    las_micro_f1,
    uas_macro_f1,
)


def test_spec_sanity_example():
    gold_heads, pred_heads = [2, 0, 2, 2], [2, 0, 1, 2]
    labels = ["NP_SBJ", "VP", "NP", "VP_CMP"]  # VP_CMP is at list index 15: OTHERS
    # UAS classes = head indices. 2: gold 3, predicted 2, correct 2 -> P 1, R 2/3, F 4/5;
    # 0: F 1; 1: predicted once, never gold -> F 0.  Macro (4/5 + 1 + 0) / 3 = 3/5; micro 3/4.
    # LAS classes: gold NP_SBJ VP NP OTHERS, predicted NP_SBJ VP PAD OTHERS (head of word 3
    # wrong). NP_SBJ, VP, OTHERS: F 1; NP: R 0, F 0; PAD: P 0, F 0 -> macro 3/5; micro 3/4;
    # without the PAD class (the erratum) 3/4.
    assert dp_scores(gold_heads, pred_heads, labels, labels) == pytest.approx(
        {
            "uas": 60.0,
            "las": 60.0,
            "uas_micro_f1": 75.0,
            "las_micro_f1": 75.0,
            "las_without_pad": 75.0,
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
