import random
from collections import Counter, defaultdict

import pytest

from kluebook.common.errors import KluebookError
from kluebook.tasks.dp import data as dp
from kluebook.tasks.dp import synthetic as synthetic_dp
from kluebook.tasks.dp.metric import _SCORED_LABEL

DEV = "klue-dp-v1.1/klue-dp-v1.1_dev.tsv"


@pytest.fixture(scope="module")
def real_dev(klue_file):
    return dp.read_official(klue_file(DEV))


def test_reads_the_real_dev_file(real_dev):
    assert len(real_dev) == 2_000
    assert sum(len(r["heads"]) for r in real_dev) == 22_496
    assert real_dev[0]["guid"] == "klue-dp-v1_dev_00000_wikitree"
    assert all(r["heads"].count(0) == 1 for r in real_dev)
    assert {pos.split("+")[-1] for r in real_dev for pos in r["pos"]} <= set(dp.POS_TAGS)
    assert len(dp.POS_TAGS) == 45 and len(dp.DEPRELS) == 38


def test_real_dev_gold_as_prediction_scores_100(real_dev):
    predictions = {r["guid"]: {"heads": r["heads"], "deprels": r["deprels"]} for r in real_dev}
    scores = dp.score(real_dev, predictions)
    assert scores == {
        "uas": 100.0,
        "las": 100.0,
        "uas_micro_f1": 100.0,
        "las_micro_f1": 100.0,
        "las_wrong_heads_as_errors": 100.0,
    }


def test_real_dev_right_labels_and_wrong_heads_score_a_corrected_las_below_the_labels(real_dev):
    # Every label right, about a third of the heads moved: with labels right, a class's TP are
    # its right-head eojeols and its FP and FN both its wrong-head ones, so its F1 is
    # 2r / (2r + 2w), its attachment accuracy; the corrected LAS is their mean over classes.
    rng = random.Random(11)
    predictions, right = {}, defaultdict(list)
    for record in real_dev:
        size = len(record["heads"])
        heads = [
            h if rng.random() < 0.7 else rng.choice([i for i in range(size + 1) if i != h])
            for h in record["heads"]
        ]
        predictions[record["guid"]] = {"heads": heads, "deprels": record["deprels"]}
        for gold, mine, label in zip(record["heads"], heads, record["deprels"], strict=True):
            right[_SCORED_LABEL[label]].append(gold == mine)
    scores = dp.score(real_dev, predictions)
    per_class = [100 * sum(hits) / len(hits) for hits in right.values()]
    print(
        f"\nreal DP dev, labels right, heads moved at random: UAS {scores['uas']:.2f}, "
        f"UAS micro {scores['uas_micro_f1']:.2f}, LAS {scores['las']:.2f}, LAS micro "
        f"{scores['las_micro_f1']:.2f}, corrected LAS {scores['las_wrong_heads_as_errors']:.2f}"
    )
    corrected = scores["las_wrong_heads_as_errors"]
    assert corrected == pytest.approx(sum(per_class) / len(per_class))
    assert min(per_class) <= corrected <= max(per_class) < 100.0  # label-only F1: 100
    # The official LAS is the PAD-free average x k/(k+1), here 16 real classes of 17; that
    # average counts no wrong head against its class's precision (F1 2r / (2r + w) per class),
    # so it lies above the corrected value.
    assert len(right) == 16
    lenient = scores["las"] * 17 / 16
    print(f"PAD-free official average (kluebook's earlier corrected value): {lenient:.2f}")
    assert lenient > corrected


def test_real_dev_is_written_back_byte_for_byte(real_dev, klue_file, tmp_path):
    dp.write_official(real_dev, tmp_path / "dev.tsv")
    assert (tmp_path / "dev.tsv").read_bytes() == (klue_file(DEV)).read_bytes()


def test_generated_data_round_trips_through_the_official_format(tmp_path):
    data = synthetic_dp.generate(seed=3)
    path = tmp_path / "klue-dp-v1.1_train.tsv"
    dp.write_official(data["train"], path)
    assert dp.read_official(path) == data["train"]
    assert 200 <= len(data["dev"]) <= len(data["train"]) <= 1_500


def test_generated_sentences_are_small_trees():
    for record in synthetic_dp.generate(seed=0)["dev"]:
        size = len(record["heads"])
        assert 3 <= size <= 8
        assert record["heads"].count(0) == 1
        assert all(0 <= head <= size and head != i for i, head in enumerate(record["heads"], 1))
        assert {pos.split("+")[-1] for pos in record["pos"]} <= set(dp.POS_TAGS)
        assert len(record["lemmas"][0].split(" ")) == len(record["pos"][0].split("+"))


def test_generation_is_deterministic_per_seed():
    assert synthetic_dp.generate(seed=1) == synthetic_dp.generate(seed=1)
    assert synthetic_dp.generate(seed=1) != synthetic_dp.generate(seed=2)


def test_generated_labels_follow_the_last_pos_tag():
    data = synthetic_dp.generate(seed=0)
    by_tag: dict[str, Counter] = {}
    for r in data["train"]:
        for pos, deprel in zip(r["pos"], r["deprels"], strict=True):
            by_tag.setdefault(pos.split("+")[-1], Counter())[deprel] += 1
    predictions = {}
    for r in data["dev"]:
        guess = [by_tag[pos.split("+")[-1]].most_common(1)[0][0] for pos in r["pos"]]
        predictions[r["guid"]] = {"heads": r["heads"], "deprels": guess}
    assert dp.score(data["dev"], predictions)["las_micro_f1"] > 90
    all_root = {
        r["guid"]: {"heads": [0] * len(r["heads"]), "deprels": r["deprels"]} for r in data["dev"]
    }
    assert dp.score(data["dev"], all_root)["uas_micro_f1"] < 30


def test_hub_rows_become_records():
    row = {
        "sentence": "그가 왔다.",
        "index": [1, 2],
        "word_form": ["그가", "왔다."],
        "lemma": ["그 가", "오 았 다 ."],
        "pos": ["NP+JKS", "VV+EP+EF+SF"],
        "head": [2, 0],
        "deprel": ["NP_SBJ", "VP"],
    }
    (record,) = dp.from_hub([row])
    assert record["guid"] == "dp-hub-00000"
    assert (record["heads"], record["deprels"]) == ([2, 0], ["NP_SBJ", "VP"])


def test_a_ner_file_is_rejected_by_content(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("## a\n## b\n## c\n## d\n## 컬럼명 : CHAR\tNE_TAG\n", encoding="utf-8")
    with pytest.raises(KluebookError, match="not a DP file"):
        dp.read_official(path)


def test_bad_lines_name_file_line_and_guid(tmp_path):
    header = "\n".join(dp.HEADER)
    path = tmp_path / "x.tsv"
    path.write_text(
        f"{header}\n## g-1\t가 나\n1\t가\t가\tNNG\t2\tNP\n2\t나\t나\tNNG\t3\tVP\n\n",
        encoding="utf-8",
    )
    with pytest.raises(KluebookError, match=r"x.tsv:8: g-1: head '3' is not an eojeol index"):
        dp.read_official(path)
    path.write_text(f"{header}\n## g-1\t가\n1\t가\t가\tNNG\t0\tSUBJ\n\n", encoding="utf-8")
    with pytest.raises(KluebookError, match=r"x.tsv:7: g-1: unknown dependency label 'SUBJ'"):
        dp.read_official(path)


def test_predictions_are_checked_per_sentence():
    gold = [{"guid": "g-1", "heads": [2, 0], "deprels": ["NP_SBJ", "VP"]}]
    with pytest.raises(KluebookError, match="g-1: expected 2 heads"):
        dp.score(gold, {"g-1": {"heads": [0], "deprels": ["VP", "VP"]}})
    with pytest.raises(KluebookError, match="g-1: head -1 is not an eojeol index"):
        dp.score(gold, {"g-1": {"heads": [-1, 0], "deprels": ["VP", "VP"]}})
    with pytest.raises(KluebookError, match="g-1: head '2' is not an eojeol index"):
        dp.score(gold, {"g-1": {"heads": ["2", 0], "deprels": ["VP", "VP"]}})
    # A head past the sentence (a padding position the baseline's parser can pick) is wrong.
    scores = dp.score(gold, {"g-1": {"heads": [3, 0], "deprels": ["NP_SBJ", "VP"]}})
    assert scores["uas_micro_f1"] == 50.0
    with pytest.raises(KluebookError, match="g-1: unknown dependency label 'SBJ'"):
        dp.score(gold, {"g-1": {"heads": [2, 0], "deprels": ["SBJ", "VP"]}})
