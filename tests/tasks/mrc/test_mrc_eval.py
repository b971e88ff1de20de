"""The windows -> answers -> metrics step that MRC evaluation runs on the Trainer's output."""

import numpy as np
import pytest
from transformers import EvalPrediction

from kluebook.tasks.mrc import answer_search, qa
from kluebook.tasks.mrc import synthetic as synthetic_mrc
from kluebook.training.tiny_model import train_wordpiece_tokenizer


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return synthetic_mrc.generate(seed=1, train_paragraphs=5, dev_paragraphs=8)["dev"]


@pytest.fixture(scope="module")
def tokenizer(records):
    texts = [r["context"] for r in records] + [r["question"] for r in records]
    return train_wordpiece_tokenizer(texts, vocab_size=400)


def test_window_labels_match_the_training_labels(records, tokenizer):
    # 40 tokens and stride 8: several overlapping windows per question, answers cut by some
    labels = qa.train_features(records, tokenizer, max_length=40, doc_stride=8)
    features, windows = qa.eval_features(records, tokenizer, max_length=40, doc_stride=8)
    assert labels["input_ids"] == features["input_ids"]
    assert qa.window_labels(records, windows) == {
        "start_positions": labels["start_positions"],
        "end_positions": labels["end_positions"],
    }
    assert any(labels["start_positions"]) and 0 in labels["start_positions"]


def test_window_length_counts_every_input_token(records, tokenizer):
    features, windows = qa.eval_features(records, tokenizer, max_length=40, doc_stride=8)
    assert [qa.window_length(w) for w in windows] == [len(ids) for ids in features["input_ids"]]


def _gold_logits(records, tokenizer, padded_length: int):
    """Logits peaked on each window's gold positions, padded with -100 (as Trainer.predict pads)
    after a first padding position that would win the n-best search if it were searched."""
    features, windows = qa.eval_features(records, tokenizer, max_length=40, doc_stride=8)
    labels = qa.window_labels(records, windows)
    starts = np.full((len(windows), padded_length), -100.0)
    ends = np.full((len(windows), padded_length), -100.0)
    for row, ids in enumerate(features["input_ids"]):
        starts[row, : len(ids) + 1] = 0.0
        ends[row, : len(ids) + 1] = 0.0
        starts[row, len(ids)] = ends[row, len(ids)] = 50.0  # a padding position
        start, end = labels["start_positions"][row], labels["end_positions"][row]
        starts[row, start] += 10.0 if start else 5.0
        ends[row, end] += 10.0 if end else 5.0
    return windows, starts, ends


def test_answers_from_padded_logits_ignore_the_padding(records, tokenizer):
    windows, starts, ends = _gold_logits(records, tokenizer, padded_length=48)
    answers = answer_search.answers_from_logits(records, windows, starts, ends)
    lengths = [qa.window_length(w) for w in windows]
    unpadded = answer_search.predict_answers(
        records,
        windows,
        [row[:n] for row, n in zip(starts, lengths, strict=True)],
        [row[:n] for row, n in zip(ends, lengths, strict=True)],
    )
    assert answers == unpadded
    assert {record["is_impossible"] for record in records} == {True, False}  # both kinds
    for record in records:
        if record["is_impossible"]:
            assert answers[record["guid"]] == ""
        else:
            assert record["answers"][0]["text"] in answers[record["guid"]]


def test_metrics_function_scores_the_answers(records, tokenizer):
    windows, starts, ends = _gold_logits(records, tokenizer, padded_length=48)
    compute_metrics = answer_search.metrics_function(records, windows)
    metrics = compute_metrics(EvalPrediction(predictions=(starts, ends), label_ids=None))
    assert set(metrics) == {"exact_match", "rouge_w"}
    # unanswerable questions are right ("" predicted); answers widened to whole tokens
    # (a particle glued on) still overlap their gold, so ROUGE-W beats EM and both are high
    assert 50.0 < metrics["exact_match"] <= metrics["rouge_w"] <= 100.0
    # logits that always prefer the null answer score the unanswerable share exactly
    null_starts, null_ends = np.zeros_like(starts), np.zeros_like(ends)
    null_starts[:, 0] = null_ends[:, 0] = 10.0
    null = compute_metrics(EvalPrediction(predictions=(null_starts, null_ends), label_ids=None))
    unanswerable = 100.0 * sum(r["is_impossible"] for r in records) / len(records)
    assert null == {"exact_match": unanswerable, "rouge_w": unanswerable}


def test_padding_positions_take_n_best_slots_when_the_run_pads_to_max_length():
    """transformers 3.5.1 searched the 20 best starts and ends over the whole window padded to
    max_length: padding positions scoring above the answer fill the n-best lists, no span is
    left, and the answer is empty. With `search_padding` (a run that pads to max_length, the
    paper profile) kluebook does the same; otherwise each row is cut to its window first."""
    record = {"guid": "q0", "context": "서울은 수도"}
    # [CLS] q [SEP] 서울은 수도 [SEP], then 24 padding positions.
    window = qa.Window(
        example_index=0, context_offset=3, offsets=[(0, 3), (4, 6)], max_context=[True, True]
    )
    starts = np.array([[1.0, 0.0, 0.0, 10.0, 0.0, 0.0] + [20.0] * 24])
    ends = np.array([[1.0, 0.0, 0.0, 0.0, 10.0, 0.0] + [20.0] * 24])
    cut = answer_search.answers_from_logits([record], [window], starts, ends, search_padding=False)
    assert cut == {"q0": "서울은 수도"}
    assert answer_search.answers_from_logits(
        [record], [window], starts, ends, search_padding=True
    ) == {"q0": ""}


def test_the_padding_search_follows_the_recipe_it_is_given():
    from kluebook.tasks import get_task
    from kluebook.training.recipes import resolve_recipe

    record = {"guid": "q0", "context": "서울은 수도"}
    window = qa.Window(
        example_index=0, context_offset=3, offsets=[(0, 3), (4, 6)], max_context=[True, True]
    )
    starts = np.array([[1.0, 0.0, 0.0, 10.0, 0.0, 0.0] + [20.0] * 24])
    ends = np.array([[1.0, 0.0, 0.0, 0.0, 10.0, 0.0] + [20.0] * 24])
    for profile, model, expected in (
        ("paper", "klue/roberta-base", ""),
        ("smoke", "kluebook/tiny-roberta", "서울은 수도"),
    ):
        recipe = resolve_recipe(get_task("mrc"), model, profile, {})
        assert recipe.pad_to_max_length == (profile == "paper")
        padding = recipe.pad_to_max_length
        assert (
            answer_search.answers_from_logits([record], [window], starts, ends, padding)["q0"]
            == expected
        )
    # Without the recipe's value the search keeps to each window's own tokens.
    assert (
        answer_search.answers_from_logits([record], [window], starts, ends)["q0"] == "서울은 수도"
    )
