import json
import re as regex

import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
from transformers import BertTokenizerFast

from kluebook.common.errors import KluebookError
from kluebook.tasks.re import data as re
from kluebook.tasks.re import synthetic as synthetic_re
from kluebook.tasks.re.metric import micro_f1


def test_relations_constant_equals_the_real_relation_list(klue_file):
    assert re.read_relations(klue_file("klue-re-v1.1/relation_list.json")) == re.RELATIONS
    assert len(re.RELATIONS) == 30 and re.RELATIONS[0] == "no_relation"


def test_a_relation_list_in_another_layout_is_rejected(tmp_path):
    path = tmp_path / "relation_list.json"
    path.write_text(json.dumps(list(re.RELATIONS)))
    with pytest.raises(KluebookError, match="not a relation list"):
        re.read_relations(path)


def test_generated_data_round_trips_in_the_official_layout(tmp_path):
    data = synthetic_re.generate(seed=3)
    re.write_relations(data["relations"]["relations"], tmp_path / "relation_list.json")
    assert re.read_relations(tmp_path / "relation_list.json") == re.RELATIONS
    for split in ("train", "dev"):
        path = tmp_path / f"klue-re-v1.1_{split}.json"
        re.write_official(data[split], path)
        records = re.read_official(path)
        assert records == data[split]
        assert {r["label"] for r in records} == set(re.RELATIONS)
        for record in records:
            for role in ("subject_entity", "object_entity"):
                entity = record[role]
                span = record["sentence"][entity["start_idx"] : entity["end_idx"] + 1]
                assert span == entity["word"] and entity["type"] in re.ENTITY_TYPES


def test_generation_is_deterministic_per_seed():
    assert synthetic_re.generate(seed=1) == synthetic_re.generate(seed=1)
    assert synthetic_re.generate(seed=1) != synthetic_re.generate(seed=2)


def test_generated_relations_are_learnable_from_words():
    data = synthetic_re.generate(seed=0)
    vectorizer = CountVectorizer(token_pattern=r"\S+")
    train_x = vectorizer.fit_transform(re.mark_entities(r) for r in data["train"])
    model = MultinomialNB().fit(train_x, [r["label"] for r in data["train"]])
    predicted = model.predict(vectorizer.transform(re.mark_entities(r) for r in data["dev"]))
    ids = {name: i for i, name in enumerate(re.RELATIONS)}
    f1 = micro_f1([ids[r["label"]] for r in data["dev"]], [ids[p] for p in predicted])
    assert 80 < f1 < 100


def _one_hot(label: str) -> list[float]:
    return [1.0 if name == label else 0.0 for name in re.RELATIONS]


def test_gold_as_prediction_scores_100(tmp_path):
    dev = synthetic_re.generate(seed=0)["dev"]
    predictions = {r["guid"]: {"label": r["label"], "probs": _one_hot(r["label"])} for r in dev}
    assert re.score(dev, predictions) == {"micro_f1": pytest.approx(100.0), "auprc": 100.0}


def test_auprc_is_null_when_a_relation_is_missing_from_gold():
    dev = [r for r in synthetic_re.generate(seed=0)["dev"] if r["label"] != "per:religion"]
    predictions = {r["guid"]: {"label": r["label"], "probs": _one_hot(r["label"])} for r in dev}
    assert re.score(dev, predictions)["auprc"] is None


@pytest.mark.parametrize(
    ("probs", "message"),
    [
        ([1 / 29] * 29, "probs list of other than 30 numbers (29)"),
        ([0.5, 0.6] + [0.0] * 28, "probs list not summing to 1 (1.1)"),
        ([1.5, -0.5] + [0.0] * 28, "probs value that is negative or not a finite number (-0.5)"),
        ([float("nan")] + [0.0] * 29, "probs value that is negative or not a finite number (nan)"),
        (None, "probs list of other than 30 numbers (NoneType)"),
    ],
)
def test_bad_probabilities_name_the_guid(probs, message):
    gold = synthetic_re.generate(seed=0)["dev"][:1]
    guid = gold[0]["guid"]
    with pytest.raises(KluebookError, match=regex.escape(f"{guid}: {message}")):
        re.score(gold, {guid: {"label": "no_relation", "probs": probs}})


def test_unknown_predicted_relation_names_the_guid():
    gold = synthetic_re.generate(seed=0)["dev"][:1]
    guid = gold[0]["guid"]
    with pytest.raises(KluebookError, match=f"{guid}: unknown relation 'per:job'"):
        re.score(gold, {guid: {"label": "per:job", "probs": _one_hot("no_relation")}})


def _record(sentence: str, subject: tuple[int, int], obj: tuple[int, int]) -> dict:
    def entity(span: tuple[int, int], kind: str) -> dict:
        word = sentence[span[0] : span[1] + 1]
        return {"word": word, "start_idx": span[0], "end_idx": span[1], "type": kind}

    return {
        "guid": "r0",
        "sentence": sentence,
        "subject_entity": entity(subject, "PER"),
        "object_entity": entity(obj, "LOC"),
        "label": "per:place_of_birth",
        "source": "wikipedia",
    }


def test_a_span_outside_the_sentence_names_the_guid(tmp_path):
    record = _record("김민준은 서울에서 태어났다.", (0, 2), (5, 6))
    record["object_entity"]["end_idx"] = 40
    path = tmp_path / "klue-re-v1.1_dev.json"
    re.write_official([record], path)
    with pytest.raises(KluebookError, match=r"r0: object_entity span 5\.\.40 is not inside"):
        re.read_official(path)


def test_hub_label_ids_follow_the_relation_list():
    record = _record("김민준은 서울에서 태어났다.", (0, 2), (5, 6))
    row = {**record, "label": re.RELATIONS.index("per:place_of_birth")}
    assert re.from_hub([row]) == [record]


def test_markers_wrap_the_spans_without_spaces_in_either_order():
    # end indices are inclusive: (0, 2) is 김민준, (5, 6) is 서울
    subject_first = _record("김민준은 서울에서 태어났다.", (0, 2), (5, 6))
    assert re.mark_entities(subject_first) == "<subj>김민준</subj>은 <obj>서울</obj>에서 태어났다."
    object_first = _record("서울에서 김민준이 태어났다.", (5, 7), (0, 1))
    assert re.mark_entities(object_first) == "<obj>서울</obj>에서 <subj>김민준</subj>이 태어났다."
    adjacent = _record("서울김민준", (2, 4), (0, 1))
    assert re.mark_entities(adjacent) == "<obj>서울</obj><subj>김민준</subj>"


@pytest.mark.parametrize(
    ("subject", "obj", "marked"),
    [
        # Partly overlapping: each span whole inside its markers, in start order, no gap text.
        ((0, 2), (2, 3), "<subj>김민준</subj><obj>준은</obj> 서울에서 태어났다."),
        # Nested: the inner span starts later, so it is marked second, after the outer one.
        ((1, 1), (0, 3), "<obj>김민준은</obj><subj>민</subj>준은 서울에서 태어났다."),
        # Same start: the shorter span first, as the official tuple comparison orders them.
        ((0, 3), (0, 1), "<obj>김민</obj><subj>김민준은</subj> 서울에서 태어났다."),
    ],
)
def test_overlapping_spans_are_marked_as_the_official_reader_marks_them(subject, obj, marked):
    assert re.mark_entities(_record("김민준은 서울에서 태어났다.", subject, obj)) == marked


def test_identical_spans_are_an_error():
    with pytest.raises(KluebookError, match="r0: subject and object have the same span"):
        re.mark_entities(_record("김민준은 서울에서 태어났다.", (0, 2), (0, 2)))


@pytest.fixture(scope="module")
def tokenizer() -> BertTokenizerFast:
    """A tiny WordPiece BERT tokenizer with a hand-written vocabulary and the four markers."""
    pieces = [
        "김민준",
        "은",
        "##은",
        "서울",
        "에서",
        "##에서",
        "태어났다",
        ".",
        "로",
        "이사",
        "##했다",
    ]
    vocab = {p: i for i, p in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *pieces])}
    backend = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    bert = BertTokenizerFast(
        tokenizer_object=backend,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    assert re.add_marker_tokens(bert) == 4
    return bert


def _tokens(tokenizer, ids: list[int]) -> list[str]:
    return tokenizer.convert_ids_to_tokens(ids)


def test_a_piece_glued_to_a_closing_marker_becomes_a_continuation(tokenizer):
    marked = "<subj>김민준</subj>은 <obj>서울</obj>에서 태어났다."
    assert tokenizer.tokenize(marked)[3] == "은"
    ids = re.tokenize_marked(tokenizer, marked, max_length=32)
    assert _tokens(tokenizer, ids) == [
        "[CLS]",
        "<subj>",
        "김민준",
        "</subj>",
        "##은",
        "<obj>",
        "서울",
        "</obj>",
        "##에서",
        "태어났다",
        ".",
        "[SEP]",
    ]


def test_a_continuation_missing_from_the_vocabulary_becomes_unk(tokenizer):
    # "로" is in the vocabulary, "##로" is not
    ids = re.tokenize_marked(tokenizer, "<subj>김민준</subj>은 <obj>서울</obj>로 이사했다", 32)
    assert _tokens(tokenizer, ids)[7:9] == ["</obj>", "[UNK]"]


def test_a_space_or_non_hangul_after_the_marker_leaves_the_piece_alone(tokenizer):
    ids = re.tokenize_marked(tokenizer, "<subj>김민준</subj> 은 <obj>서울</obj>.", 32)
    assert _tokens(tokenizer, ids) == [
        "[CLS]",
        "<subj>",
        "김민준",
        "</subj>",
        "은",
        "<obj>",
        "서울",
        "</obj>",
        ".",
        "[SEP]",
    ]


def test_a_marker_at_the_end_of_the_text_is_left_alone(tokenizer):
    ids = re.tokenize_marked(tokenizer, "<obj>서울</obj>에서 <subj>김민준</subj>", 32)
    assert _tokens(tokenizer, ids)[-2:] == ["</subj>", "[SEP]"]


def test_long_inputs_lose_their_tail(tokenizer):
    ids = re.tokenize_marked(tokenizer, "<subj>김민준</subj>은 <obj>서울</obj>에서 태어났다.", 6)
    assert _tokens(tokenizer, ids) == ["[CLS]", "<subj>", "김민준", "</subj>", "##은", "[SEP]"]


def test_a_tokenizer_without_markers_is_refused():
    plain = BertTokenizerFast(
        tokenizer_object=Tokenizer(models.WordPiece({"[UNK]": 0}, unk_token="[UNK]")),
        unk_token="[UNK]",
    )
    with pytest.raises(ValueError, match="add MARKERS to the tokenizer"):
        re.tokenize_marked(plain, "<subj>a</subj> b <obj>c</obj> d", 16)


def test_an_unmarked_text_is_refused(tokenizer):
    with pytest.raises(ValueError, match="mark it with mark_entities"):
        re.tokenize_marked(tokenizer, "김민준은 서울에서 태어났다.", 16)
