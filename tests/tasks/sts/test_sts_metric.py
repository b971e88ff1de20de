import math

import pytest

from kluebook.tasks.sts.metric import pearson_r, threshold_f1


def test_pearson_by_hand():
    # gold deviations (-1, 0, 1), prediction deviations (-1, 1, 0): cov 1, variances 2 and 2.
    assert pearson_r([0, 1, 2], [0, 2, 1]) == pytest.approx(50.0)
    assert pearson_r([1, 2, 3], [3, 2, 1]) == pytest.approx(-100.0)


def test_predictions_above_five_are_not_clipped():
    # pred (1, 2, 5.7): mean 2.9, deviations (-1.9, -0.9, 2.8); cov with (-1, 0, 1) = 4.7;
    # sum of squares 3.61 + 0.81 + 7.84 = 12.26 -> r = 4.7 / sqrt(2 * 12.26).
    unclipped = 100 * 4.7 / math.sqrt(2 * 12.26)
    # clipped to 5: deviations (-5/3, -2/3, 7/3); cov 4; sum of squares 78/9
    clipped = 100 * 4 / math.sqrt(2 * 78 / 9)
    assert pearson_r([1, 2, 3], [1, 2, 5.7]) == pytest.approx(unclipped)
    assert unclipped != pytest.approx(clipped, abs=0.5)


def test_predictions_below_zero_are_not_clipped():
    # pred (-0.3, 2, 3): sum 4.7, sum of squares 13.09 -> centred 13.09 - 4.7**2/3;
    # cross products 12.7 - 3 * 2 * 4.7/3 = 3.3 -> r = 3.3 / sqrt(2 * centred).
    unclipped = 100 * 3.3 / math.sqrt(2 * (13.09 - 4.7**2 / 3))
    # clipped to 0: (0, 2, 3): centred 13 - 25/3, cross 13 - 10 = 3
    clipped = 100 * 3 / math.sqrt(2 * (13 - 25 / 3))
    assert pearson_r([1, 2, 3], [-0.3, 2, 3]) == pytest.approx(unclipped)
    assert unclipped != pytest.approx(clipped, abs=0.5)


@pytest.mark.parametrize(
    ("gold", "pred"),
    [([1, 2, 3], [2.5, 2.5, 2.5]), ([3, 3, 3], [1, 2, 3]), ([3], [3])],
    ids=["constant predictions", "constant gold", "one pair"],
)
def test_pearson_is_undefined_rather_than_invented(gold, pred):
    assert pearson_r(gold, pred) is None


def test_f1_thresholds_gold_and_prediction_at_three_inclusive():
    gold = [3.0, 2.99, 4.0, 1.0]  # -> 1, 0, 1, 0
    pred = [3.0, 3.0, 2.99, 0.5]  # -> 1, 1, 0, 0
    # TP 1 (first), FP 1 (second), FN 1 (third): P = R = 1/2, F1 = 1/2.
    assert threshold_f1(gold, pred) == pytest.approx(50.0)


def test_f1_counts_out_of_range_predictions_on_their_side_of_the_threshold():
    assert threshold_f1([4.0, 1.0], [5.7, -0.3]) == pytest.approx(100.0)


def test_f1_without_any_positive_is_zero():
    assert threshold_f1([1.0, 2.0], [0.0, 2.9]) == 0.0


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        pearson_r([1, 2], [1])
    with pytest.raises(ValueError):
        threshold_f1([1, 2], [1])
