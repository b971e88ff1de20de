from collections import Counter

import pytest

from kluebook.common.errors import KluebookError
from kluebook.tasks.ner import data as ner
from kluebook.tasks.ner import synthetic as synthetic_ner

DEV = "klue-ner-v1.1/klue-ner-v1.1_dev.tsv"


@pytest.fixture(scope="module")
def real_dev(klue_file):
    return ner.read_official(klue_file(DEV))


def test_reads_the_real_dev_file(real_dev):
    assert len(real_dev) == 5_000
    chars = Counter(char == " " for r in real_dev for char in r["chars"])
    assert (chars[False], chars[True]) == (225_550, 60_379)
    begins = Counter(tag[2:] for r in real_dev for tag in r["tags"] if tag.startswith("B-"))
    assert begins == {"PS": 4_418, "QT": 3_151, "DT": 2_312, "OG": 2_182, "LC": 1_649, "TI": 545}
    assert real_dev[0]["guid"] == "klue-ner-v1_dev_00000-wikitree"


def test_real_dev_gold_as_prediction_scores_100(real_dev):
    predictions = {r["guid"]: {"guid": r["guid"], "tags": r["tags"]} for r in real_dev}
    assert ner.score(real_dev, predictions) == {
        "entity_f1": 100.0,
        "char_f1": 100.0,
        "char_f1_without_o": 100.0,
    }


def test_real_dev_is_written_back_byte_for_byte(real_dev, klue_file, tmp_path):
    ner.write_official(real_dev, tmp_path / "dev.tsv")
    assert (tmp_path / "dev.tsv").read_bytes() == (klue_file(DEV)).read_bytes()
    assert all(ner.markup(r["chars"], r["tags"]) == r["sentence"] for r in real_dev)


def test_markup_is_rebuilt_from_tags():
    chars = list("김 철수가 9시에 왔다")
    tags = ["B-PS", "I-PS", "I-PS", "I-PS", "O", "O", "B-TI", "I-TI", "O", "O", "O", "O"]
    assert ner.markup(chars, tags) == "<김 철수:PS>가 <9시:TI>에 왔다"
    assert ner.markup(list("가나"), ["B-PS", "B-PS"]) == "<가:PS><나:PS>"


def test_generated_data_round_trips_through_the_official_format(tmp_path):
    data = synthetic_ner.generate(seed=3)
    path = tmp_path / "klue-ner-v1.1_train.tsv"
    ner.write_official(data["train"], path)
    assert ner.read_official(path) == data["train"]
    tags = {tag for r in data["train"] for tag in r["tags"]}
    assert tags == set(ner.TAGS)
    assert 200 <= len(data["dev"]) <= len(data["train"]) <= 1_500


def test_generation_is_deterministic_per_seed():
    assert synthetic_ner.generate(seed=1) == synthetic_ner.generate(seed=1)
    assert synthetic_ner.generate(seed=1) != synthetic_ner.generate(seed=2)


def test_generated_entities_are_learnable_from_the_train_split():
    data = synthetic_ner.generate(seed=0)
    # A lookup "model": the most frequent train tag of each (character, next character) pair.
    counts: dict[tuple[str, str], Counter] = {}
    for r in data["train"]:
        for i, tag in enumerate(r["tags"]):
            key = (r["chars"][i], "".join(r["chars"][i + 1 : i + 2]))
            counts.setdefault(key, Counter())[tag] += 1
    predictions = {}
    for r in data["dev"]:
        keys = [(c, "".join(r["chars"][i + 1 : i + 2])) for i, c in enumerate(r["chars"])]
        tags = [counts[k].most_common(1)[0][0] if k in counts else "O" for k in keys]
        predictions[r["guid"]] = {"tags": tags}
    learned = ner.score(data["dev"], predictions)
    all_o = ner.score(
        data["dev"], {r["guid"]: {"tags": ["O"] * len(r["tags"])} for r in data["dev"]}
    )
    assert learned["entity_f1"] > 50 and learned["char_f1"] > 80
    assert all_o["entity_f1"] == 0.0


def test_hub_rows_are_mapped_to_official_tags():
    rows = [
        {"sentence": "<김:PS> 왔다", "tokens": list("김 왔다"), "ner_tags": [6, 12, 12, 12, 12]}
    ]
    (record,) = ner.from_hub(rows)
    assert record["tags"] == ["B-PS", "O", "O", "O", "O"]
    assert record["guid"] == "ner-hub-00000" and record["chars"][1] == " "


def test_a_dp_file_is_rejected_by_content(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("## a\n## b\n## c\n## d\n## 칼럼명 : INDEX\tWORD_FORM\n", encoding="utf-8")
    with pytest.raises(KluebookError, match="not a NER file"):
        ner.read_official(path)


def test_a_malformed_character_line_names_file_line_and_guid(tmp_path):
    path = tmp_path / "x.tsv"
    header = "\n".join(ner.HEADER)
    path.write_text(f"{header}\n## g-1\t가나\n가\tO\n나다\tO\n\n", encoding="utf-8")
    with pytest.raises(KluebookError, match=r"x.tsv:8: g-1: expected CHAR<TAB>TAG"):
        ner.read_official(path)


def test_prediction_length_must_match_the_characters_including_spaces():
    gold = [{"guid": "g-1", "sentence": "가 나", "chars": list("가 나"), "tags": ["O"] * 3}]
    with pytest.raises(KluebookError, match=r"g-1: expected 3 tags .* got 2"):
        ner.score(gold, {"g-1": {"tags": ["O", "O"]}})
    with pytest.raises(KluebookError, match="g-1: unknown tag 'B-PER'"):
        ner.score(gold, {"g-1": {"tags": ["B-PER", "O", "O"]}})


def test_prediction_lines_may_carry_the_boundary_tags():
    import numpy as np

    from kluebook.tasks import get_task
    from kluebook.tasks.ner.data import TAGS, boundary_tags
    from kluebook.training.recipes import resolve_recipe

    records = [
        {"guid": "n-1", "chars": list("김 씨"), "tags": ["B-PS", "O", "O"]},
        {"guid": "n-2", "chars": list("서울"), "tags": ["B-LC", "I-LC"]},
    ]
    plain = {r["guid"]: {"guid": r["guid"], "tags": r["tags"]} for r in records}
    assert ner.score(records, plain)["entity_f1"] == 100.0
    logits = np.zeros((2, 6, len(TAGS)))
    logits[:, :, TAGS.index("O")] = 1.0
    logits[0, -1, TAGS.index("B-PS")] = 5.0  # the last padded position of the first sentence
    ends = boundary_tags(logits)
    assert ends == [("O", "B-PS"), ("O", "O")]
    with_ends = {
        g: {**line, "boundary": list(end)}
        for (g, line), end in zip(plain.items(), ends, strict=True)
    }
    assert ner.score(records, with_ends)["entity_f1"] < 100.0
    with pytest.raises(KluebookError, match="n-2: boundary is given for some"):
        ner.score(records, {"n-1": with_ends["n-1"], "n-2": plain["n-2"]})
    with pytest.raises(KluebookError, match="n-1: boundary must be"):
        ner.score(records, {**with_ends, "n-1": {**plain["n-1"], "boundary": ["X", "O"]}})
    # With a paper run's switches (which score them) lines without the boundary tags are refused.
    paper = resolve_recipe(get_task("ner"), "klue/roberta-base", "paper", {}).switches()
    with pytest.raises(KluebookError, match="ner_boundary_tags: model"):
        ner.score(records, plain, paper)
    assert ner.score(records, with_ends, paper) == ner.score(records, with_ends)
    smoke = resolve_recipe(get_task("ner"), "kluebook/tiny-roberta", "smoke", {}).switches()
    assert ner.score(records, plain, smoke)["entity_f1"] == 100.0
