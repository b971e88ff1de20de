"""The windows -> answers -> metrics step that MRC evaluation runs on the Trainer's output."""

import numpy as np
import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import BertTokenizerFast, EvalPrediction

from kluebook.tasks.mrc import qa
from kluebook.tasks.mrc import synthetic as synthetic_mrc

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return synthetic_mrc.generate(seed=1, train_paragraphs=5, dev_paragraphs=8)["dev"]


@pytest.fixture(scope="module")
def tokenizer(records):
    word_pieces = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    word_pieces.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    word_pieces.train_from_iterator(
        [r["context"] for r in records] + [r["question"] for r in records],
        trainers.WordPieceTrainer(vocab_size=400, special_tokens=SPECIAL_TOKENS),
    )
    return BertTokenizerFast(vocab=word_pieces.get_vocab(), do_lower_case=False)


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
    answers = qa.answers_from_logits(records, windows, starts, ends)
    lengths = [qa.window_length(w) for w in windows]
    unpadded = qa.predict_answers(
        records,
        windows,
        [row[:n] for row, n in zip(starts, lengths, strict=True)],
        [row[:n] for row, n in zip(ends, lengths, strict=True)],
    )
    assert answers == unpadded
    for record in records:
        if record["is_impossible"]:
            assert answers[record["guid"]] == ""
        else:
            assert record["answers"][0]["text"] in answers[record["guid"]]


def test_metrics_function_scores_the_answers(records, tokenizer):
    windows, starts, ends = _gold_logits(records, tokenizer, padded_length=48)
    compute_metrics = qa.metrics_function(records, windows)
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
