import pytest
from sklearn.metrics import f1_score

from kluebook.tasks.ynat.metric import macro_f1


def test_macro_f1_by_hand():
    gold = ["a", "a", "b", "c"]
    pred = ["a", "b", "b", "b"]
    # a: P=1 R=.5 F=2/3; b: P=1/3 R=1 F=.5; c: F=0  -> mean 7/18
    assert macro_f1(gold, pred) == pytest.approx(100 * 7 / 18)


def test_a_class_only_in_predictions_counts_in_the_average():
    gold = ["a", "a"]
    pred = ["a", "z"]
    assert macro_f1(gold, pred) == pytest.approx(100 * f1_score(gold, pred, average="macro"))
    assert macro_f1(gold, pred) == pytest.approx(100 * (2 / 3) / 2)


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        macro_f1(["a"], [])
