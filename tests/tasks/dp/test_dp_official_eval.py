"""The DP parser evaluates and is initialised as KLUE-baseline's (`dependency_parsing.py`).

At evaluation the baseline multiplies the biaffine arc scores by the dependent and candidate
masks, so a padded head candidate scores exactly 0 and wins whenever every real candidate of a
shorter sentence scores below 0 (training adds -1e8 to padded candidates instead). Its arc
scorer weight is a (1, dependent, head) tensor and its label scorer's weights are all Xavier-
initialised. Both are switches: `dp_padded_head_score` and `dp_scorer_init`.
"""

import math

import pytest
import torch
from test_dp_parser import SMALL, records, tiny_parser, tokenizer  # noqa: F401  (fixtures)

from kluebook.tasks import get_task
from kluebook.tasks.dp.features import collate, encode_parser_input
from kluebook.tasks.dp.parser import MASKED_SCORE, Biaffine, LabelScorer
from kluebook.training.recipes import resolve_recipe

# Two sentences in one batch: the first has one eojeol, the second two.
WORD_MASK = torch.tensor([[True, False], [True, True]])
# (batch, dependent, candidate): candidates are root, eojeol 1, eojeol 2.
ARC_SCORES = torch.tensor(
    [
        [[-1.0, -2.0, -3.0], [4.0, 5.0, 6.0]],  # 2nd row: a padded dependent
        [[-1.0, -2.0, -3.0], [-4.0, 0.5, -6.0]],
    ]
)


def masked(parser, training=False):
    return parser._mask_arc_scores(ARC_SCORES.clone(), WORD_MASK, training=training)


def test_a_padded_candidate_scores_zero_and_wins_over_negative_scores(tokenizer):  # noqa: F811
    parser = tiny_parser(tokenizer, **SMALL)
    assert parser.padded_head_score == "zero"  # the default is the baseline's
    scores = masked(parser)
    assert scores[0].tolist() == [[-1.0, -2.0, 0.0], [0.0, 0.0, 0.0]]
    assert scores[1].tolist() == ARC_SCORES[1].tolist()  # the longest sentence has no padding
    # The one-eojeol sentence's head: the padded candidate 2, though it has no eojeol 2.
    assert scores.argmax(-1)[0, 0].item() == 2
    assert scores.argmax(-1)[1].tolist() == [0, 1]


def test_masked_padding_is_the_fix_and_the_training_rule(tokenizer):  # noqa: F811
    parser = tiny_parser(tokenizer, **SMALL, padded_head_score="masked")
    scores = masked(parser)
    assert scores[0, 0].tolist() == [-1.0, -2.0, MASKED_SCORE]
    assert scores.argmax(-1)[0, 0].item() == 0
    official = tiny_parser(tokenizer, **SMALL)
    assert torch.equal(masked(official, training=True), masked(parser, training=True))
    assert masked(official, training=True)[0, 0, 2].item() == MASKED_SCORE


def test_predict_points_short_sentences_at_padding_when_real_scores_are_negative(
    tokenizer,  # noqa: F811
):
    """Every real arc score set to -5 (zero weights, bias -5): under the baseline's rule the
    shorter sentence's eojeols all take the first padded position as head; the longest
    sentence, with no padding, and the masked rule take the root (the first of equal scores)."""
    sentences = [
        {"guid": "a", "word_forms": ["가"], "pos": ["NNG"], "heads": [0], "deprels": ["NP"]},
        {"guid": "b", "word_forms": ["가", "나", "다"], "pos": ["NNG"] * 3, "heads": [2, 3, 0]},
    ]
    sentences[1]["deprels"] = ["NP", "NP", "VP"]
    features = [encode_parser_input(tokenizer, s) for s in sentences]
    batch = collate(features, tokenizer.pad_token_id)
    for rule, short_heads in (("zero", [2]), ("masked", [0])):
        parser = tiny_parser(tokenizer, **SMALL, padded_head_score=rule).eval()
        with torch.no_grad():
            for weight in (parser.arc_scorer.weight, parser.arc_scorer.dependent_weight):
                weight.zero_()
            parser.arc_scorer.head_weight.zero_()
            parser.arc_scorer.bias.fill_(-5.0)
        (short, _), (long, _) = parser.predict(batch)
        assert short == short_heads
        assert long == [0, 0, 0]


def xavier_bound(fan_in: int, fan_out: int) -> float:
    return math.sqrt(6.0 / (fan_in + fan_out))


def test_the_official_initialisation_of_both_scorers():
    torch.manual_seed(0)
    arcs = Biaffine(64, 48)
    # The baseline's U is (1, dependent, head): fan_in = 64 x 48, fan_out = 48.
    bound = xavier_bound(64 * 48, 48)
    assert arcs.weight.abs().max() <= bound
    assert arcs.weight.std().item() == pytest.approx(bound / math.sqrt(3), rel=0.05)
    assert arcs.bias.item() == 0.0
    labels = LabelScorer(32, 10)
    bilinear_bound = xavier_bound(32 * 32, 10 * 32)
    assert labels.bilinear.weight.abs().max() <= bilinear_bound
    assert labels.bilinear.weight.std().item() == pytest.approx(
        bilinear_bound / math.sqrt(3), rel=0.05
    )
    assert torch.count_nonzero(labels.bilinear.bias) == 0
    for linear in (labels.dependent, labels.head):
        assert linear.weight.abs().max() <= xavier_bound(32, 10)
        assert linear.weight.std().item() > 0.5 * xavier_bound(32, 10) / math.sqrt(3)


def test_the_earlier_initialisation_is_a_switch(tokenizer):  # noqa: F811
    torch.manual_seed(0)
    arcs = Biaffine(64, 48, init="kluebook-0.1")
    assert arcs.weight.abs().max() > xavier_bound(64 * 48, 48)  # the 2-D Xavier range
    labels = LabelScorer(32, 10, init="kluebook-0.1")
    assert torch.count_nonzero(labels.bilinear.bias) > 0  # PyTorch's default draws the bias
    parser = tiny_parser(tokenizer, **SMALL)
    before = parser.label_scorer.bilinear.weight.clone()
    smoke = resolve_recipe(get_task("dp"), "kluebook/tiny-roberta", "smoke", {})
    parser.apply_recipe(smoke)
    assert (parser.scorer_init, parser.padded_head_score) == ("kluebook-0.1", "masked")
    assert not torch.equal(before, parser.label_scorer.bilinear.weight)
    paper = resolve_recipe(get_task("dp"), "klue/roberta-base", "paper", {})
    parser.apply_recipe(paper)
    assert (parser.scorer_init, parser.padded_head_score) == ("official", "zero")
    drawn = parser.label_scorer.bilinear.weight.clone()
    parser.apply_recipe(paper)  # the same initialisation is not drawn again
    assert torch.equal(drawn, parser.label_scorer.bilinear.weight)
