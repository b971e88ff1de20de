import pytest

from kluebook.common.errors import KluebookError
from kluebook.tasks.ynat import data as ynat
from kluebook.tasks.ynat import synthetic as synthetic_ynat


def test_reads_real_train_and_dev(klue_file):
    train = ynat.read_official(
        klue_file("ynat-v1.1/ynat-v1.1_train.json", "ynat-v1.1/ynat-v1.1_train.partial.json")
    )
    dev = ynat.read_official(
        klue_file("ynat-v1.1/ynat-v1.1_dev.json", "ynat-v1.1/ynat-v1.1_dev.partial.json")
    )
    assert (len(train), len(dev)) == (45_678, 9_107)
    assert {r["label"] for r in dev} == set(ynat.LABELS)


def test_generated_data_round_trips_through_the_official_format(tmp_path):
    data = synthetic_ynat.generate(seed=3)
    path = tmp_path / "ynat-v1.1_dev.json"
    ynat.write_official(data["dev"], path)
    records = ynat.read_official(path)
    assert [r["title"] for r in records] == [r["title"] for r in data["dev"]]
    assert {r["label"] for r in records} == set(ynat.LABELS)


def test_generation_is_deterministic_per_seed():
    assert synthetic_ynat.generate(seed=1) == synthetic_ynat.generate(seed=1)
    assert synthetic_ynat.generate(seed=1) != synthetic_ynat.generate(seed=2)


def test_hub_labels_are_mapped_to_official_names():
    rows = [{"guid": "g0", "title": "t", "label": 0}, {"guid": "g1", "title": "t", "label": 6}]
    assert [r["label"] for r in ynat.from_hub(rows)] == ["IT과학", "정치"]


def test_a_file_of_another_task_is_rejected_by_content(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('[{"guid": "a", "premise": "p", "hypothesis": "h", "gold_label": "neutral"}]')
    with pytest.raises(KluebookError, match="not a YNAT file"):
        ynat.read_official(path)


def test_unknown_predicted_label_names_the_guid():
    gold = [{"guid": "g0", "title": "t", "label": "정치"}]
    with pytest.raises(KluebookError, match="g0: unknown label 'politics'"):
        ynat.score(gold, {"g0": {"guid": "g0", "label": "politics"}})
