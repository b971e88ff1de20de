from itertools import pairwise

import pytest

from kluebook.common.errors import KluebookError
from kluebook.tasks.wos import data as wos
from kluebook.tasks.wos import synthetic as synthetic_wos


def _gold_predictions(records: list[dict]) -> dict:
    rows = [
        {"guid": r["guid"], "turn": turn, "state": list(state)}
        for r in records
        for turn, state in enumerate(wos.user_states(r))
    ]
    return {wos.prediction_key(row): row for row in rows}


def test_real_dev_sample_loads_and_scores_100_against_itself(klue_file):
    records = wos.read_official(klue_file("wos-v1.1/wos-v1.1_dev_sample_10.json"))
    assert len(records) == 10
    keys = wos.gold_keys(records)
    assert len(keys) == len(set(keys)) == sum(len(wos.user_states(r)) for r in records)
    assert keys[0] == (records[0]["guid"], 0)
    assert wos.score(records, _gold_predictions(records)) == {
        "joint_goal_accuracy": 100.0,
        "slot_f1": 100.0,
        "slot_f1_pooled": 100.0,
    }


def test_real_ontology_has_45_slots_and_dev_values_outside_it(klue_file):
    ontology = wos.read_ontology(klue_file("wos-v1.1/ontology.json"))
    assert len(ontology) == 45
    assert all(values[:2] == ["none", "dontcare"] for values in ontology.values())
    records = wos.read_official(klue_file("wos-v1.1/wos-v1.1_dev_sample_10.json"))
    assert set(wos.slot_names(records)) <= set(ontology)
    values = {wos.split_state_item(item) for r in records for s in wos.user_states(r) for item in s}
    assert any(value not in ontology[slot] for slot, value in values)


def test_generated_ontology_is_its_own(klue_file):
    real = wos.read_ontology(klue_file("wos-v1.1/ontology.json"))
    assert not set(synthetic_wos.ontology()) & set(real)


def test_generated_data_round_trips_and_uses_its_ontology(tmp_path):
    data = synthetic_wos.generate(seed=3)
    wos.write_official(data["dev"], tmp_path / "dev.json")
    wos.write_ontology(data["ontology"], tmp_path / "ontology.json")
    assert wos.read_official(tmp_path / "dev.json") == data["dev"]
    ontology = wos.read_ontology(tmp_path / "ontology.json")
    assert ontology == data["ontology"]
    assert all(values[:2] == ["none", "dontcare"] for values in ontology.values())
    assert any(values[2:] == ["yes", "no"] for values in ontology.values())
    items = {
        wos.split_state_item(item)
        for r in data["train"] + data["dev"]
        for state in wos.user_states(r)
        for item in state
    }
    assert all(value in ontology[slot] and value != "none" for slot, value in items)
    assert {"dontcare", "yes", "no"} <= {value for _, value in items}
    assert set(wos.slot_names(data["train"])) == set(ontology)


def test_generated_dialogues_have_two_to_four_user_turns_and_cumulative_states():
    data = synthetic_wos.generate(seed=0)
    assert 300 <= sum(len(wos.user_states(r)) for r in data["dev"]) <= 500
    for record in data["train"]:
        states = wos.user_states(record)
        assert 2 <= len(states) <= 4
        for before, after in pairwise(states):
            slots_after = {wos.split_state_item(i)[0] for i in after}
            assert {wos.split_state_item(i)[0] for i in before} <= slots_after


def test_generation_is_deterministic_per_seed():
    assert synthetic_wos.generate(seed=1) == synthetic_wos.generate(seed=1)
    assert synthetic_wos.generate(seed=1) != synthetic_wos.generate(seed=2)


def test_values_may_contain_dashes(tmp_path):
    assert wos.split_state_item("택시-도착지-서울-부산 터미널") == (
        "택시-도착지",
        "서울-부산 터미널",
    )
    dialogue = {
        "guid": "d0",
        "domains": ["택시"],
        "dialogue": [
            {"role": "user", "text": "u", "state": ["택시-도착지-서울-부산 터미널"]},
            {"role": "sys", "text": "s"},
        ],
    }
    wos.write_official([dialogue], tmp_path / "d.json")
    records = wos.read_official(tmp_path / "d.json")
    wrong = {("d0", 0): {"state": ["택시-도착지-서울"]}}
    assert wos.score(records, wrong) == {
        "joint_goal_accuracy": 0.0,
        "slot_f1": 0.0,
        "slot_f1_pooled": 0.0,
    }


def test_hub_rows_drop_the_empty_system_states():
    turns = [
        {"role": "user", "text": "u", "state": ["관광-종류-공원"]},
        {"role": "sys", "text": "s", "state": []},
    ]
    expected = [
        {"role": "user", "text": "u", "state": ["관광-종류-공원"]},
        {"role": "sys", "text": "s"},
    ]
    columns = {key: [t[key] for t in turns] for key in ("role", "text", "state")}
    for layout in (turns, columns):
        [record] = wos.from_hub([{"guid": "d0", "domains": ["관광"], "dialogue": layout}])
        assert record["dialogue"] == expected


def test_bad_state_entry_names_the_dialogue(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(
        '[{"guid": "d7", "domains": [], "dialogue": [{"role": "user", "text": "u", '
        '"state": ["관광"]}]}]',
        encoding="utf-8",
    )
    with pytest.raises(KluebookError, match="d7: bad state entry '관광'"):
        wos.read_official(path)


def test_prediction_lines_need_an_integer_turn():
    with pytest.raises(TypeError, match="'turn' as an integer"):
        wos.prediction_key({"guid": "d0", "turn": "0"})
    with pytest.raises(KeyError):
        wos.prediction_key({"guid": "d0"})
    records = synthetic_wos.generate(seed=0)["dev"][:1]
    with pytest.raises(KluebookError, match="turn 0: state must be a list of strings"):
        wos.score(records, {(records[0]["guid"], t): {"state": "x"} for t in range(4)})
