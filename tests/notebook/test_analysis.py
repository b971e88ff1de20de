"""The analysis helpers the task notebooks share."""

import pandas as pd
import pytest
from sklearn.metrics import classification_report

from kluebook.notebook.analysis import (
    class_report_table,
    majority_by_key,
    majority_label,
    token_table,
)

GOLD = ("a", "a", "b", "b", "c")
PREDICTED = ("a", "b", "b", "b", "a")
ENCODED = {"input_ids": [2, 7, 3], "token_type_ids": [0, 0, 1], "attention_mask": [1, 1, 1]}


class TestMajorityLabel:
    def test_the_most_frequent_label_wins(self):
        assert majority_label(["b", "a", "b", "c", "b", "a"]) == "b"

    def test_a_tie_goes_to_the_label_seen_first(self):
        assert majority_label(["c", "a", "a", "c", "b"]) == "c"
        assert majority_label(["a", "c", "c", "a", "b"]) == "a"

    def test_it_uses_only_the_labels_it_is_given(self):
        train = ["sports", "sports", "politics"]
        dev = ["politics", "politics", "politics", "politics"]
        assert majority_label(train) == "sports"
        assert majority_label(dev) == "politics"

    def test_it_takes_any_iterable_once(self):
        assert majority_label(label for label in ["x", "y", "y"]) == "y"
        assert majority_label([0, 3, 3]) == 3

    def test_no_labels_is_an_error(self):
        with pytest.raises(ValueError, match="at least one"):
            majority_label([])


class TestMajorityByKey:
    def test_each_key_gets_its_own_most_frequent_label(self):
        pairs = [("x", "A"), ("y", "B"), ("x", "A"), ("x", "C"), ("y", "B"), ("y", "A")]
        assert majority_by_key(pairs) == {"x": "A", "y": "B"}

    def test_a_tie_goes_to_the_label_seen_first_for_that_key(self):
        pairs = [("x", "C"), ("y", "A"), ("x", "A"), ("y", "C")]
        assert majority_by_key(pairs) == {"x": "C", "y": "A"}

    def test_no_pairs_give_no_keys(self):
        assert majority_by_key([]) == {}


class TestClassReportTable:
    def test_rows_follow_the_labels_given_with_integer_support(self):
        report = classification_report(
            GOLD, PREDICTED, labels=["c", "a", "b"], output_dict=True, zero_division=0
        )
        table = class_report_table(report, ["c", "a", "b"])
        assert list(table.index) == ["c", "a", "b"]
        assert list(table.columns) == ["precision", "recall", "f1-score", "support"]
        assert table["support"].tolist() == [1, 2, 2]
        assert table["support"].dtype.kind == "i"
        assert table.loc["b", "precision"] == pytest.approx(0.667)
        assert table.loc["a", "f1-score"] == pytest.approx(0.5)

    def test_a_label_the_report_lacks_has_no_scores_and_no_support(self):
        report = classification_report(GOLD, PREDICTED, output_dict=True, zero_division=0)
        table = class_report_table(report, ["a", "z"])
        assert table.loc["z", "support"] == 0
        assert pd.isna(table.loc["z", "f1-score"])

    def test_without_labels_the_summary_rows_are_dropped(self):
        report = classification_report(GOLD, PREDICTED, output_dict=True, zero_division=0)
        assert "accuracy" in report
        table = class_report_table(report)
        assert list(table.index) == ["a", "b", "c"]


class FakeTokenizer:
    def __init__(self, segments: bool):
        self.model_input_names = ["input_ids", "attention_mask"]
        if segments:
            self.model_input_names.append("token_type_ids")

    def convert_ids_to_tokens(self, ids):
        return [f"t{i}" for i in ids]


class TestTokenTable:
    def test_segments_are_shown_where_the_model_takes_them(self):
        table = token_table(FakeTokenizer(segments=True), ENCODED)
        assert list(table.index) == ["token", "id", "segment"]
        assert table.loc["token"].tolist() == ["t2", "t7", "t3"]
        assert table.loc["segment"].tolist() == [0, 0, 1]

    def test_no_segments_for_a_model_without_them(self):
        table = token_table(FakeTokenizer(segments=False), ENCODED)
        assert list(table.index) == ["token", "id"]
        assert table.loc["id"].tolist() == [2, 7, 3]
