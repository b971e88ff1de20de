import pytest

from kluebook.tasks.wos.metric import joint_goal_accuracy, slot_f1, turn_f1

AREA_CENTRE = "식당-지역-서울 중앙"
AREA_NORTH = "식당-지역-서울 북쪽"
KIND = "식당-종류-한식당"


def test_joint_goal_accuracy_compares_sets():
    gold = [[AREA_CENTRE], [AREA_CENTRE, KIND], []]
    pred = [[AREA_CENTRE], [KIND, AREA_CENTRE], [KIND]]
    # turns 1 and 2 match (order does not matter), turn 3 does not -> 2/3
    assert joint_goal_accuracy(gold, pred) == pytest.approx(200 / 3)


def test_empty_gold_turn_scores_one_only_for_an_empty_prediction():
    assert turn_f1([], []) == 1.0
    assert turn_f1([], [KIND]) == 0.0


def test_a_wrong_value_is_one_false_positive_and_one_false_negative():
    # TP=1 (KIND), FP=1 (AREA_NORTH), FN=1 (AREA_CENTRE): P=1/2, R=1/2 -> F=1/2
    assert turn_f1([AREA_CENTRE, KIND], [AREA_NORTH, KIND]) == pytest.approx(0.5)


def test_an_extra_slot_lowers_precision_only():
    # TP=2, FP=1, FN=0: P=2/3, R=1 -> F = (4/3)/(5/3) = 4/5
    assert turn_f1([AREA_CENTRE, KIND], [AREA_CENTRE, KIND, "식당-주류 판매-yes"]) == pytest.approx(
        0.8
    )
    assert turn_f1([AREA_CENTRE], []) == 0.0


def test_slot_f1_is_the_mean_of_turn_f1_not_a_pooled_f1():
    gold = [[AREA_CENTRE, KIND], [], [AREA_CENTRE]]
    pred = [[AREA_NORTH, KIND], [], []]
    # turn F1: 1/2, 1, 0 -> mean 1/2 -> 50. (Pooled over turns: TP=1, FP=1, FN=2 -> F=0.4.)
    assert slot_f1(gold, pred) == pytest.approx(50.0)


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        slot_f1([[]], [])
