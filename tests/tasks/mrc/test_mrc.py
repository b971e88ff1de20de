import json

import pytest

from kluebook.common.errors import KluebookError
from kluebook.tasks.mrc import data as mrc
from kluebook.tasks.mrc import synthetic as synthetic_mrc


def _gold_predictions(records: list[dict]) -> dict[str, dict]:
    return {
        r["guid"]: {
            "guid": r["guid"],
            "answer": "" if r["is_impossible"] else r["answers"][0]["text"],
        }
        for r in records
    }


def test_generated_data_round_trips_through_the_nested_official_layout(tmp_path):
    data = synthetic_mrc.generate(seed=3)
    path = tmp_path / "klue-mrc-v1.1_dev.json"
    mrc.write_official(data["dev"], path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    paragraphs = [p for article in raw["data"] for p in article["paragraphs"]]
    assert len(paragraphs) == len({r["context"] for r in data["dev"]})
    assert all(
        "plausible_answers" in qa for p in paragraphs for qa in p["qas"] if qa["is_impossible"]
    )
    assert mrc.read_official(path) == data["dev"]


def test_generated_data_is_well_formed():
    data = synthetic_mrc.generate(seed=0)
    assert 500 <= len(data["train"]) <= 1500 and 100 <= len(data["dev"]) <= 500
    for record in data["train"] + data["dev"]:
        assert len(record["context"]) < 200
        for answer in record["answers"] + record["plausible_answers"]:
            start = answer["answer_start"]
            assert record["context"][start : start + len(answer["text"])] == answer["text"]
        assert record["is_impossible"] == (record["question_type"] == 3) == (not record["answers"])
    assert {r["question_type"] for r in data["dev"]} == {1, 2, 3}
    for record in data["dev"]:
        cued = any(cue in record["question"] for cue in synthetic_mrc.TYPE3_CUES)
        assert cued == record["is_impossible"]
        assert not any(cue in record["context"] for cue in synthetic_mrc.TYPE3_CUES)


def test_generation_is_deterministic_per_seed():
    assert synthetic_mrc.generate(seed=1) == synthetic_mrc.generate(seed=1)
    assert synthetic_mrc.generate(seed=1) != synthetic_mrc.generate(seed=2)


def test_gold_as_prediction_scores_100():
    records = synthetic_mrc.generate(seed=0)["dev"]
    assert mrc.score(records, _gold_predictions(records)) == {
        "exact_match": 100.0,
        "rouge_w": 100.0,
        "exact_match_brackets_stripped": 100.0,
        "rouge_w_brackets_stripped": 100.0,
    }


def _hub_row(**changes) -> dict:
    row = {
        "guid": "q0",
        "title": "t",
        "source": "s",
        "news_category": "사회",
        "context": "서울은 한국의 수도이다.",
        "question": "한국의 수도는?",
        "answers": {"answer_start": [0], "text": ["서울"]},
        "question_type": 1,
        "is_impossible": False,
    }
    return {**row, **changes}


def test_hub_plausible_answers_are_not_gold():
    row = _hub_row(question_type=3, is_impossible=True, question="일본의 수도는?")
    [record] = mrc.from_hub([row])
    assert record["answers"] == []
    assert record["plausible_answers"] == [{"text": "서울", "answer_start": 0}]
    assert mrc.gold_answers(record) == []
    assert mrc.score([record], {"q0": {"answer": ""}})["rouge_w"] == 100.0
    scores = mrc.score([record], {"q0": {"answer": "서울"}})
    assert scores["exact_match"] == scores["rouge_w"] == 0.0


def test_hub_answer_starts_shifted_by_context_stripping_are_relocated():
    # The original context began with two spaces, so the stated start (10) is 2 too far.
    row = _hub_row(answers={"answer_start": [10], "text": ["수도"]})
    [record] = mrc.from_hub([row])
    assert record["answers"] == [{"text": "수도", "answer_start": 8}]
    assert mrc.locate_answer("서울 서울", "서울", 4) == 3  # nearest occurrence wins
    assert mrc.locate_answer("서울", "부산", 1) == 1  # absent text: start left as given


def test_a_file_of_another_task_is_rejected_by_content(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('[{"guid": "a", "title": "t", "label": "정치"}]')
    with pytest.raises(KluebookError, match="not a KLUE-MRC file"):
        mrc.read_official(path)


def test_bad_question_type_names_the_guid(tmp_path):
    records = synthetic_mrc.generate(seed=0)["dev"][:1]
    records[0]["question_type"] = 4
    path = tmp_path / "mrc.json"
    mrc.write_official(records, path)
    with pytest.raises(KluebookError, match="klue-mrc-v1_dev_00000: unknown question_type 4"):
        mrc.read_official(path)


def test_non_string_answer_names_the_guid():
    records = synthetic_mrc.generate(seed=0)["dev"][:1]
    with pytest.raises(KluebookError, match="klue-mrc-v1_dev_00000: answer must be a string"):
        mrc.score(records, {records[0]["guid"]: {"answer": None}})
