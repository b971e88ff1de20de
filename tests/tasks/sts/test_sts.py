import math

import pytest
from scipy.stats import pearsonr

from kluebook.common.errors import KluebookError
from kluebook.tasks.sts import data as sts
from kluebook.tasks.sts import synthetic as synthetic_sts


def test_reads_real_dev(klue_file):
    dev = sts.read_official(klue_file("klue-sts-v1.1/klue-sts-v1.1_dev.json"))
    assert len(dev) == 519
    assert {r["source"] for r in dev} == set(sts.SOURCES)
    assert sum(r["labels"]["binary-label"] for r in dev) == 220
    assert all(r["labels"]["binary-label"] == (r["labels"]["real-label"] >= 3.0) for r in dev)


def test_reads_the_reduced_real_train_file(klue_file):
    train = sts.read_official(klue_file("klue-sts-v1.1/klue-sts-v1.1_train.partial.json"))
    assert len(train) == 11_668
    assert all(r["source"] is None and "real-label" not in r["labels"] for r in train)
    assert sts.target(train[0]) == train[0]["labels"]["label"]


def test_gold_as_prediction_scores_100_on_real_dev(klue_file):
    dev = sts.read_official(klue_file("klue-sts-v1.1/klue-sts-v1.1_dev.json"))
    predictions = {r["guid"]: {"score": r["labels"]["real-label"]} for r in dev}
    assert sts.score(dev, predictions) == {
        "pearsonr": pytest.approx(100.0),
        "f1": pytest.approx(100.0),
    }


def _gold(*real_labels: float) -> list[dict]:
    return [
        {
            "guid": f"g{i}",
            "source": "airbnb-rtt",
            "sentence1": "a",
            "sentence2": "b",
            "labels": {"label": round(x, 1), "real-label": x, "binary-label": int(x >= 3)},
        }
        for i, x in enumerate(real_labels)
    ]


def test_scores_are_taken_raw_and_constant_scores_leave_pearson_undefined():
    gold = _gold(1.0, 2.0, 3.0)
    raw = sts.score(gold, {"g0": {"score": 1}, "g1": {"score": 2}, "g2": {"score": 5.7}})
    assert raw["pearsonr"] == pytest.approx(100 * 4.7 / math.sqrt(2 * 12.26))  # see metric tests
    constant = sts.score(gold, {g: {"score": 2.5} for g in ("g0", "g1", "g2")})
    assert constant == {"pearsonr": None, "f1": 0.0}


@pytest.mark.parametrize("bad", ["3.0", None, float("nan"), True])
def test_a_score_that_is_not_a_finite_number_names_the_guid(bad):
    with pytest.raises(KluebookError, match="g1: score must be a finite number"):
        sts.score(_gold(1.0, 2.0), {"g0": {"score": 1.0}, "g1": {"score": bad}})


def test_gold_without_real_label_cannot_be_scored():
    gold = _gold(1.0)
    del gold[0]["labels"]["real-label"]
    with pytest.raises(KluebookError, match="g0: the gold record has no real-label"):
        sts.score(gold, {"g0": {"score": 1.0}})


def test_generated_data_round_trips_and_labels_agree(tmp_path):
    data = synthetic_sts.generate(seed=3)
    path = tmp_path / "klue-sts-v1.1_dev.json"
    sts.write_official(data["dev"], path)
    records = sts.read_official(path)
    assert [r["sentence2"] for r in records] == [r["sentence2"] for r in data["dev"]]
    for record in data["dev"]:
        labels, scores = record["labels"], record["annotations"]["annotations"]
        assert labels["real-label"] == pytest.approx(sum(scores) / len(scores))
        assert labels["binary-label"] == int(labels["real-label"] >= 3.0)
    assert {r["source"] for r in records} <= set(sts.SOURCES)


def test_generation_is_deterministic_per_seed():
    assert synthetic_sts.generate(seed=1) == synthetic_sts.generate(seed=1)
    assert synthetic_sts.generate(seed=1) != synthetic_sts.generate(seed=2)


def test_generated_scores_follow_word_overlap():
    def overlap(record: dict) -> float:
        first, second = set(record["sentence1"].split()), set(record["sentence2"].split())
        return len(first & second) / len(first | second)

    dev = synthetic_sts.generate(seed=0)["dev"]
    r = pearsonr([overlap(x) for x in dev], [x["labels"]["real-label"] for x in dev]).statistic
    assert r > 0.5
    assert 0.3 < sum(x["labels"]["binary-label"] for x in dev) / len(dev) < 0.7


def test_hub_rows_keep_their_labels():
    row = {
        "guid": "g0",
        "source": "policy-rtt",
        "sentence1": "a",
        "sentence2": "b",
        "labels": {"label": 3.1, "real-label": 3.142857, "binary-label": 1},
    }
    assert sts.from_hub([row]) == [row]


def test_a_file_of_another_task_is_rejected_by_content(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('[{"guid": "a", "title": "t", "label": "정치"}]')
    with pytest.raises(KluebookError, match="not a KLUE-STS file"):
        sts.read_official(path)
