import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from kluebook.tasks.re.metric import auprc, micro_f1


def test_micro_f1_leaves_out_no_relation_by_hand():
    # ids: 0 = no_relation, 29 = per:title, 2 = org:founded
    gold = [0, 29, 29, 2, 0]
    pred = [29, 29, 0, 2, 0]
    # TP = 2 (positions 1 and 3); predicted relations = 3 (0, 1, 3); gold relations = 3 (1, 2, 3)
    # P = R = 2/3 -> F1 = 2/3. The correct no_relation at position 4 does not count
    # (with it, plain micro F1 = accuracy would be 3/5).
    assert micro_f1(gold, pred) == pytest.approx(100 * 2 / 3)


def test_micro_f1_is_zero_when_only_no_relation_occurs():
    assert micro_f1([0, 0], [0, 0]) == 0.0


def test_auprc_is_the_trapezoidal_area_not_average_precision():
    gold = [1, 0, 1, 0]
    probs = np.array([[0.1, 0.9], [0.2, 0.8], [0.3, 0.7], [0.9, 0.1]])
    # class 1, scores 0.9 P, 0.8 N, 0.7 P, 0.1 N -> (recall, precision) points
    # (0, 1), (.5, 1), (.5, .5), (1, 2/3), (1, .5).
    # Trapezoids: .5 * 1 + 0 + .5 * (.5 + 2/3) / 2 + 0 = 1/2 + 7/24 = 19/24.
    # class 0, scores 0.9 P, 0.3 N, 0.2 P, 0.1 N: the same ranking pattern -> 19/24.
    assert auprc(gold, probs) == pytest.approx(100 * 19 / 24)
    # Average precision sums recall steps times precision: .5 * 1 + .5 * 2/3 = 5/6 per class.
    average_precision = np.mean(
        [average_precision_score(np.equal(gold, c), probs[:, c]) for c in (0, 1)]
    )
    assert average_precision == pytest.approx(5 / 6)


def test_points_after_full_recall_add_no_area():
    # class 1 reaches full recall at 0.7; the lower-scored negatives add points at recall 1
    # only (sklearn 0.24 dropped them, newer sklearn keeps them: same area either way).
    gold = [1, 1, 0, 0, 0]
    probs = np.array([[0.1, 0.9], [0.3, 0.7], [0.4, 0.6], [0.5, 0.5], [0.6, 0.4]])
    # class 1: positives 0.9, 0.7 above negatives 0.6, 0.5, 0.4: points (0, 1), (.5, 1), (1, 1),
    # then (1, 2/3), (1, 1/2), (1, 2/5) of zero width -> area 1.
    # class 0: positives 0.6, 0.5, 0.4 above negatives 0.3, 0.1 -> area 1 likewise.
    assert auprc(gold, probs) == pytest.approx(100.0)


def test_one_hot_gold_probabilities_give_100():
    gold = list(range(30)) * 2
    assert auprc(gold, np.eye(30)[gold]) == pytest.approx(100.0)


def test_auprc_is_undefined_when_a_class_has_no_gold_example():
    gold = [0, 1, 1]
    probs = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.8, 0.1]])
    assert auprc(gold, probs) is None


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError):
        auprc([0, 1], np.eye(2)[[0]])
