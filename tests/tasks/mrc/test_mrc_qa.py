import numpy as np
import pytest
from transformers import BertTokenizerFast

from kluebook.tasks.mrc import answer_search, qa

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "서울",
    "##은",
    "한국",
    "##의",
    "수도",
    "##이다",
    ".",
    "##는",
    "어디",
    "##인가",
    "?",
]
CONTEXT = "서울은 한국의 수도이다."
# context tokens: 0 서울 (0,2), 1 ##은, 2 한국 (4,6), 3 ##의, 4 수도 (8,10), 5 ##이다, 6 .
# question tokens: 수도 ##는 어디 ##인가 ?  -> 5 tokens, so context tokens start at input position 7


@pytest.fixture(scope="module")
def tokenizer():
    return BertTokenizerFast(vocab={w: i for i, w in enumerate(VOCAB)}, do_lower_case=False)


def _record(guid="q0", answer="서울", start=0, impossible=False) -> dict:
    answers = [] if impossible else [{"text": answer, "answer_start": start}]
    return {
        "guid": guid,
        "context": CONTEXT,
        "question": "수도는 어디인가?",
        "answers": answers,
        "is_impossible": impossible,
    }


def test_one_window_training_labels(tokenizer):
    features = qa.train_features(
        [_record(), _record(impossible=True)], tokenizer, max_length=15, doc_stride=2
    )
    assert features["input_ids"][0] == [2, 9, 12, 13, 14, 15, 3, 5, 6, 7, 8, 9, 10, 11, 3]
    assert features["token_type_ids"][0] == [0] * 7 + [1] * 8
    assert features["start_positions"] == [7, 0]  # "서울" is context token 0; unanswerable -> 0
    assert features["end_positions"] == [7, 0]


def test_windows_step_by_the_stride_and_label_the_first_token_when_the_answer_is_outside(tokenizer):
    # max_length 12 leaves 12-5-3 = 4 context tokens per window; stride 2:
    # windows cover tokens 0-3, 2-5, 4-6. "수도" (token 4) is outside the first one.
    features = qa.train_features([_record("q0", "수도", 8)], tokenizer, max_length=12, doc_stride=2)
    assert len(features["input_ids"]) == 3
    assert features["start_positions"] == [0, 4 - 2 + 7, 4 - 4 + 7]
    assert features["end_positions"] == features["start_positions"]


def test_answers_that_are_not_at_their_start_are_dropped(tokenizer):
    features = qa.train_features([_record(answer="수도", start=0)], tokenizer, max_length=15)
    assert features["input_ids"] == []


def test_max_context_flags(tokenizer):
    _, windows = qa.eval_features([_record()], tokenizer, max_length=12, doc_stride=2)
    # score = min(tokens left, tokens right) + 0.01 * window length; e.g. token 3 gets
    # 0.04 in window 0-3 and 1.04 in window 2-5; token 5 gets 0.04 in 2-5 and 1.03 in 4-6.
    assert [w.max_context for w in windows] == [
        [True, True, True, False],
        [False, True, True, False],
        [False, True, True],
    ]
    assert windows[1].offsets == [(4, 6), (6, 7), (8, 10), (10, 12)]


def _logits(length: int, values: dict[int, float]) -> np.ndarray:
    logits = np.zeros(length)
    for position, value in values.items():
        logits[position] = value
    return logits


def test_best_span_against_the_null_score(tokenizer):
    records = [_record()]
    _, windows = qa.eval_features(records, tokenizer, max_length=15)

    def answer(null: float, **options) -> str:
        # input 2 is a question token and 9 -> 7 runs backwards: neither is ever a span
        starts = _logits(15, {0: null, 7: 5.0, 2: 9.0, 9: 2.0})
        ends = _logits(15, {0: null, 7: 4.0, 9: 6.0})
        return answer_search.predict_answers(records, windows, [starts], [ends], **options)["q0"]

    # best span: inputs 7..9 "서울은 한국" scoring 5+6 = 11 (7..7 "서울" scores 5+4 = 9)
    assert answer(null=1.0) == "서울은 한국"  # null 2: 2-11 < 0
    assert answer(null=5.5) == "서울은 한국"  # null 11: a difference of 0 is not > 0
    assert answer(null=6.0) == ""  # null 12: 12-11 > 0
    assert answer(null=1.0, null_threshold=-10.0) == ""  # 2-11 = -9 > -10
    assert answer(null=1.0, max_answer_length=1) == "서울"  # 7..9 is 3 tokens long


def test_longer_spans_and_the_max_context_rule(tokenizer):
    records = [_record()]
    _, windows = qa.eval_features(records, tokenizer, max_length=12, doc_stride=2)
    # "수도" (token 4) is at input 9 of window 2-5 (its max-context window) and at input 7 of
    # window 4-6, which gives it higher logits but may not start a span there.
    starts = [_logits(12, {}), _logits(12, {9: 1.0}), _logits(12, {7: 10.0})]
    ends = [_logits(12, {}), _logits(12, {10: 1.0}), _logits(12, {7: 10.0})]
    # best allowed: window 2-5, tokens 4..5 "수도이다" scoring 2 > null 0
    assert answer_search.predict_answers(records, windows, starts, ends)["q0"] == "수도이다"


def test_only_the_null_answer_left_uses_the_placeholder(tokenizer):
    records = [_record()]
    _, windows = qa.eval_features(records, tokenizer, max_length=15)
    starts, ends = _logits(15, {0: -1.0}), _logits(15, {0: -1.0})
    # With max_answer_length 0 no span is allowed, so 3.5.1 compares the null score -2 with a
    # placeholder "empty" scored 0: -2 - 0 is not > 0, so the placeholder is the answer.
    assert answer_search.predict_answers(
        records, windows, [starts], [ends], max_answer_length=0
    ) == {"q0": "empty"}


def test_a_stride_larger_than_a_window_is_an_error(tokenizer):
    with pytest.raises(ValueError, match="fewer than the stride"):
        qa.eval_features([_record()], tokenizer, max_length=12, doc_stride=5)


def test_gold_logits_on_generated_data_give_the_gold_spans():
    from kluebook.tasks.mrc import synthetic as synthetic_mrc
    from kluebook.training.tiny_model import train_wordpiece_tokenizer

    records = synthetic_mrc.generate(seed=0, train_paragraphs=10, dev_paragraphs=10)["dev"]
    texts = [r["context"] for r in records] + [r["question"] for r in records]
    tokenizer = train_wordpiece_tokenizer(texts, vocab_size=400)
    # 40 tokens leave about 20 context tokens per window: several overlapping windows per question
    labels = qa.train_features(records, tokenizer, max_length=40, doc_stride=8)
    features, windows = qa.eval_features(records, tokenizer, max_length=40, doc_stride=8)
    assert labels["input_ids"] == features["input_ids"] and len(windows) > 2 * len(records)
    starts, ends = [], []
    for ids, start, end in zip(
        features["input_ids"], labels["start_positions"], labels["end_positions"], strict=True
    ):
        start_logits, end_logits = np.zeros(len(ids)), np.zeros(len(ids))
        start_logits[start] += 10.0 if start else 5.0  # the answer, or no answer in this window
        end_logits[end] += 10.0 if end else 5.0
        starts.append(start_logits)
        ends.append(end_logits)
    predictions = answer_search.predict_answers(records, windows, starts, ends)
    # A tiny vocabulary glues particles to answers ("부산에서" is one token), so the predicted
    # span is the gold answer widened to whole tokens: it contains the gold and lies in the context.
    assert {record["is_impossible"] for record in records} == {True, False}  # both kinds
    for record in records:
        predicted = predictions[record["guid"]]
        if record["is_impossible"]:
            assert predicted == ""
        else:
            assert record["answers"][0]["text"] in predicted and predicted in record["context"]


def _labels(tokenizer, record, profile: str) -> tuple[int, int]:
    from kluebook.tasks import get_task
    from kluebook.training.recipes import resolve_recipe
    from kluebook.training.tiny_model import TINY_MODEL

    model = TINY_MODEL if profile == "smoke" else "klue/roberta-base"
    switch = resolve_recipe(get_task("mrc"), model, profile, {}).switches()["mrc_answer_labels"]
    features = qa.train_features([record], tokenizer, max_length=15, answer_labels=switch)
    return features["start_positions"][0], features["end_positions"][0]


def test_paper_labels_whole_words_unless_the_answers_own_pieces_occur_inside_them(tokenizer):
    # "수도이" ends inside the piece ##이다 of the word "수도이다." (tokens 4 수도, 5 ##이다, 6 .);
    # tokenised alone it is [UNK], found nowhere, so transformers 3.5.1 labels the whole word.
    inside_a_piece = _record(answer="수도이", start=8)
    assert _labels(tokenizer, inside_a_piece, "paper") == (7 + 4, 7 + 6)
    assert _labels(tokenizer, inside_a_piece, "smoke") == (7 + 4, 7 + 5)  # pieces overlapping it
    # "수도" is the word's first piece: the word's span shrinks to it in both ways.
    own_piece = _record(answer="수도", start=8)
    assert _labels(tokenizer, own_piece, "paper") == _labels(tokenizer, own_piece, "smoke")
    assert _labels(tokenizer, own_piece, "paper") == (7 + 4, 7 + 4)


def test_paper_labels_drop_answers_their_words_do_not_hold(tokenizer):
    features = qa.train_features([_record(answer="수도", start=0)], tokenizer, max_length=15)
    assert features["input_ids"] == []  # the word 서울은 does not hold 수도
