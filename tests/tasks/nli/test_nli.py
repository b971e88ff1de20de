import json
from collections import Counter

import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression

from kluebook.common.errors import KluebookError
from kluebook.tasks.nli import data as nli
from kluebook.tasks.nli import synthetic as synthetic_nli


def test_reads_real_dev(klue_file):
    dev = nli.read_official(klue_file("klue-nli-v1.1/klue-nli-v1.1_dev.json"))
    assert len(dev) == 3_000
    assert Counter(r["gold_label"] for r in dev) == {label: 1_000 for label in nli.LABELS}
    assert Counter(r["source"] for r in dev)["airbnb"] == 600


def test_real_train_genre_is_read_as_source(klue_file):
    train = nli.read_official(klue_file("klue-nli-v1.1/klue-nli-v1.1_train.json"))
    assert len(train) == 24_998
    assert {r["source"] for r in train} == set(nli.SOURCES)


def test_gold_as_prediction_scores_100_on_real_dev(klue_file):
    dev = nli.read_official(klue_file("klue-nli-v1.1/klue-nli-v1.1_dev.json"))
    predictions = {r["guid"]: {"label": r["gold_label"]} for r in dev}
    assert nli.score(dev, predictions) == {"accuracy": pytest.approx(100.0)}


def test_hub_labels_are_mapped_to_official_names():
    rows = [
        {"guid": f"g{i}", "source": "NSMC", "premise": "p", "hypothesis": "h", "label": i}
        for i in range(3)
    ]
    # hub order: entailment, neutral, contradiction
    assert [r["gold_label"] for r in nli.from_hub(rows)] == [
        "entailment",
        "neutral",
        "contradiction",
    ]
    # a split that still uses the baseline order says so in its features
    old_order = ["entailment", "contradiction", "neutral"]
    assert [r["gold_label"] for r in nli.from_hub(rows, old_order)] == old_order


def test_hub_label_order_is_taken_from_the_dataset_features():
    import datasets

    features = datasets.Features(
        {
            "guid": datasets.Value("string"),
            "source": datasets.Value("string"),
            "premise": datasets.Value("string"),
            "hypothesis": datasets.Value("string"),
            "label": datasets.ClassLabel(names=["entailment", "contradiction", "neutral"]),
        }
    )
    rows = datasets.Dataset.from_dict(
        {"guid": ["g0"], "source": ["NSMC"], "premise": ["p"], "hypothesis": ["h"], "label": [1]},
        features=features,
    )
    assert nli.from_hub(rows)[0]["gold_label"] == "contradiction"


def test_hub_label_out_of_range_names_the_guid():
    row = {"guid": "g7", "source": "NSMC", "premise": "p", "hypothesis": "h", "label": -1}
    with pytest.raises(KluebookError, match="g7: hub label id -1"):
        nli.from_hub([row])


def test_generated_data_round_trips_in_the_official_layout(tmp_path):
    data = synthetic_nli.generate(seed=3)
    for split in ("train", "dev"):
        path = tmp_path / f"klue-nli-v1.1_{split}.json"
        nli.write_official(data[split], path)
        raw = json.loads(path.read_text(encoding="utf-8"))
        assert ("genre" in raw[0], "source" in raw[0]) == (split == "train", split == "dev")
        records = nli.read_official(path)
        assert [r["hypothesis"] for r in records] == [r["hypothesis"] for r in data[split]]
        assert {r["source"] for r in records} <= set(nli.SOURCES)
        assert {r["gold_label"] for r in records} == set(nli.LABELS)


def test_generation_is_deterministic_per_seed():
    assert synthetic_nli.generate(seed=1) == synthetic_nli.generate(seed=1)
    assert synthetic_nli.generate(seed=1) != synthetic_nli.generate(seed=2)


def test_generated_labels_are_learnable_from_words():
    data = synthetic_nli.generate(seed=0)
    vectorizer = CountVectorizer(token_pattern=r"\S+")
    train_x = vectorizer.fit_transform(r["hypothesis"] for r in data["train"])
    model = LogisticRegression(max_iter=1000).fit(train_x, [r["gold_label"] for r in data["train"]])
    dev_x = vectorizer.transform(r["hypothesis"] for r in data["dev"])
    accuracy = model.score(dev_x, [r["gold_label"] for r in data["dev"]])
    assert 0.8 < accuracy < 1.0


def test_unknown_predicted_label_names_the_guid():
    gold = [
        {"guid": "g0", "source": "NSMC", "premise": "p", "hypothesis": "h", "gold_label": "neutral"}
    ]
    with pytest.raises(KluebookError, match="g0: unknown label 'NEUTRAL'"):
        nli.score(gold, {"g0": {"guid": "g0", "label": "NEUTRAL"}})


def test_a_file_of_another_task_is_rejected_by_content(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('[{"guid": "a", "title": "t", "label": "정치"}]')
    with pytest.raises(KluebookError, match="not a KLUE-NLI file"):
        nli.read_official(path)
