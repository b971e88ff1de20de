import datasets
import numpy as np
import pytest
import torch
from conftest import tiny_encoder
from transformers import EvalPrediction

from kluebook.tasks.dp import synthetic as synthetic_dp
from kluebook.tasks.dp.features import DEPREL_IDS, IGNORE_INDEX, encode_parser_input
from kluebook.tasks.dp.metric import dp_scores
from kluebook.tasks.dp.parser import (
    DependencyParser,
    ParserTrainer,
    decode_predictions,
    parser_metrics,
)
from kluebook.training.fine_tuning import fine_tune
from kluebook.training.recipes import Recipe
from kluebook.training.tiny_model import train_wordpiece_tokenizer

P = IGNORE_INDEX


def evaluation(pred_heads, pred_labels, gold_heads, gold_labels) -> EvalPrediction:
    """A ParserTrainer-shaped evaluation output of label names, padded with -100."""
    ids = [[DEPREL_IDS[label] if label != P else P for label in row] for row in pred_labels]
    gold_ids = [[DEPREL_IDS[label] if label != P else P for label in row] for row in gold_labels]
    return EvalPrediction(
        predictions=(np.array(pred_heads), np.array(ids)),
        label_ids=(np.array(gold_heads), np.array(gold_ids)),
    )


def test_predictions_are_cut_to_each_sentences_eojeols_and_scored_without_padding():
    # Sentence 1 has 3 eojeols, sentence 2 has 1; padding is -100 in both gold and prediction.
    prediction = evaluation(
        pred_heads=[[2, 0, 2], [0, P, P]],
        pred_labels=[["NP_SBJ", "VP", "NP_OBJ"], ["VP", P, P]],
        gold_heads=[[2, 0, 1], [0, P, P]],
        gold_labels=[["NP_SBJ", "VP", "NP_OBJ"], ["VNP", P, P]],
    )
    assert decode_predictions(prediction) == [
        ([2, 0, 2], ["NP_SBJ", "VP", "NP_OBJ"]),
        ([0], ["VP"]),
    ]
    expected = dp_scores(
        [2, 0, 1, 0],
        [2, 0, 2, 0],
        ["NP_SBJ", "VP", "NP_OBJ", "VNP"],
        ["NP_SBJ", "VP", "NP_OBJ", "VP"],
    )
    assert parser_metrics(prediction) == expected
    # 3 of 4 heads right; labelled: NP_SBJ and VP right, NP_OBJ has a wrong head, VNP != VP.
    assert expected["uas_micro_f1"] == 75.0
    assert expected["las_micro_f1"] == 50.0


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return synthetic_dp.generate(seed=0, train_size=24, dev_size=8)


def test_the_parser_trains_on_the_trainer_and_predicts_every_dev_eojeol(records, tmp_path):
    torch.set_num_threads(1)
    # The stand-in's vocabulary, the same in every process (a vocabulary trained by the
    # tokenizers library differs from process to process, and with it what this parser learns).
    tokenizer = train_wordpiece_tokenizer([r["sentence"] for r in records["train"]], 200)
    parser = DependencyParser(
        tiny_encoder(tokenizer, hidden_size=16, layers=1, max_positions=66),
        lstm_size=16,
        arc_size=16,
        label_size=8,
        pos_size=8,
    )
    recipe = Recipe(
        learning_rate=1e-2,
        batch_size=8,
        eval_batch_size=4,
        epochs=1,
        warmup_ratio=0.0,
        weight_decay=0.0,
        max_length=64,
        adam_epsilon=1e-8,
        max_grad_norm=1.0,
        evals_per_epoch=1,
        selection_metric="las",
    )

    def encode(rows):
        return datasets.Dataset.from_list([encode_parser_input(tokenizer, r, 64) for r in rows])

    dev = encode(records["dev"])
    result = fine_tune(
        parser,
        tokenizer,
        encode(records["train"]),
        dev,
        parser_metrics,
        recipe,
        0,
        tmp_path,
        trainer_class=ParserTrainer,
    )
    assert set(result.best) >= {"step", "epoch", "uas", "las", "uas_micro_f1", "las_micro_f1"}
    predicted = decode_predictions(result.trainer.predict(dev))
    # Dev evaluation keeps the dataset order: each sentence gets one head per eojeol.
    sizes = [len(r["heads"]) for r in records["dev"]]
    assert [len(heads) for heads, _ in predicted] == sizes
    # As in the official evaluation, a padded head candidate scores 0 (`dp_padded_head_score`
    # "zero") and can win: a head may point past its sentence, never past the widest sentence
    # of its evaluation batch (the padding's width).
    widths = [max(sizes[i - i % 4 : i - i % 4 + 4]) for i in range(len(sizes))]
    assert all(0 <= h <= w for (heads, _), w in zip(predicted, widths, strict=True) for h in heads)
    # Padded candidates masked as in training ("masked"): every head is within its sentence.
    result.trainer.model.padded_head_score = "masked"
    masked = decode_predictions(result.trainer.predict(dev))
    assert all(0 <= h <= len(heads) for heads, _ in masked for h in heads)
