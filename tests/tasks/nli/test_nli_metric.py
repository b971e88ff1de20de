import pytest

from kluebook.tasks.nli.metric import accuracy


def test_accuracy_by_hand():
    gold = ["entailment", "neutral", "contradiction", "neutral"]
    pred = ["entailment", "neutral", "neutral", "neutral"]
    # 3 of 4 right
    assert accuracy(gold, pred) == pytest.approx(75.0)


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        accuracy(["neutral"], [])
