import random

import pytest
from seqeval.metrics import f1_score as seqeval_f1
from seqeval.scheme import IOB2

from kluebook.tasks.ner.metric import (
    TAGS,
    char_macro_f1,
    char_macro_f1_without_o,
    entity_macro_f1,
    ner_scores,
    scoring_sequence,
)


def test_spaces_are_dropped_and_each_sentence_is_wrapped_in_o():
    sentences = [(list("김 철수"), ["B-PS", "I-PS", "I-PS", "I-PS"]), (list("네"), ["O"])]
    assert scoring_sequence(sentences) == ["O", "B-PS", "I-PS", "I-PS", "O", "O", "O", "O"]


def test_tags_on_spaces_do_not_count():
    chars = [list("김 철수")]
    gold = [["B-PS", "I-PS", "I-PS", "I-PS"]]
    pred = [["B-PS", "O", "I-PS", "I-PS"]]  # differs only on the space
    assert ner_scores(chars, gold, pred) == {
        "entity_f1": 100.0,
        "char_f1": 100.0,
        "char_f1_without_o": 100.0,
    }


def test_boundary_o_keeps_entities_of_adjacent_sentences_apart():
    chars = [list("가나"), list("다라")]
    gold = [["B-PS", "I-PS"], ["B-PS", "I-PS"]]
    pred = [["B-PS", "I-PS"], ["I-PS", "I-PS"]]
    # With the boundary O's the predicted sequence is O B I O | O I I O: one entity (the first
    # name; the second sentence starts with I-PS after O, which strict IOB2 does not accept).
    # Gold has two entities: P = 1/1, R = 1/2, F = 2/3.
    assert ner_scores(chars, gold, pred)["entity_f1"] == pytest.approx(100 * 2 / 3)
    # Concatenated without them, the prediction B I I I would be one 4-character entity: F = 0.
    unwrapped = entity_macro_f1(
        ["B-PS", "I-PS", "B-PS", "I-PS"],
        ["B-PS", "I-PS", "I-PS", "I-PS"],
    )
    assert unwrapped == 0.0


def test_strict_iob2_an_i_tag_without_b_is_not_an_entity():
    gold = ["O", "B-LC", "I-LC", "O"]
    pred = ["O", "I-LC", "I-LC", "O"]
    # Gold has one LC entity, the prediction none: LC F1 = 0, the only type -> 0.
    assert entity_macro_f1(gold, pred) == 0.0
    # seqeval's default (lenient, conlleval-style) mode would accept it as an entity.
    assert seqeval_f1([gold], [pred], average="macro") == 1.0


def test_entity_f1_is_a_macro_average_over_types():
    gold = ["B-PS", "I-PS", "O", "B-LC", "O", "B-LC", "O"]
    pred = ["B-PS", "I-PS", "O", "B-LC", "O", "O", "O"]
    # PS: F = 1; LC: P = 1/1, R = 1/2, F = 2/3 -> macro (1 + 2/3) / 2 = 5/6
    # (the micro average would be P = 2/2, R = 2/3, F = 4/5).
    assert entity_macro_f1(gold, pred) == pytest.approx(100 * 5 / 6)


def test_char_f1_includes_o_and_scores_absent_tags_as_one():
    gold = ["O", "B-PS", "I-PS", "O", "O"]
    pred = ["O", "B-PS", "O", "O", "O"]
    # O: gold 3, predicted 4, correct 3 -> P = 3/4, R = 1, F = 6/7
    # B-PS: F = 1;  I-PS: gold 1, predicted 0 -> R = 0, F = 0
    # the 10 tags absent from gold and prediction: F = 1 each (zero_division=1)
    # 13 tags: (6/7 + 1 + 0 + 10) / 13 = 83/91;  12 tags without O: (1 + 0 + 10) / 12 = 11/12
    assert char_macro_f1(gold, pred) == pytest.approx(100 * 83 / 91)
    assert char_macro_f1_without_o(gold, pred) == pytest.approx(100 * 11 / 12)
    # With zero_division=0 the absent tags would count 0: (6/7 + 1) / 13, far lower.
    assert char_macro_f1(gold, pred) > 100 * (6 / 7 + 1) / 13 + 50


def test_entity_f1_of_pieces_equals_seqeval_on_the_single_sequence():
    rng = random.Random(7)
    for _ in range(5):
        gold = rng.choices(TAGS, weights=[3] * 12 + [30], k=900)
        pred = [tag if rng.random() < 0.8 else rng.choice(TAGS) for tag in gold]
        single = seqeval_f1([gold], [pred], average="macro", mode="strict", scheme=IOB2)
        assert entity_macro_f1(gold, pred) == pytest.approx(100 * single)


def test_unknown_tag_and_length_mismatch_are_errors():
    with pytest.raises(ValueError, match="unknown NER tag 'B-XX'"):
        char_macro_f1(["O"], ["B-XX"])
    with pytest.raises(ValueError):
        char_macro_f1(["O", "O"], ["O"])
    with pytest.raises(ValueError):
        scoring_sequence([(["가"], ["O", "O"])])


def test_the_boundary_predictions_enter_both_metrics():
    """The baseline scores its predictions at [CLS] and at the last padded position against
    `O`: a B-PS predicted at a sentence's end is a false entity and a wrong `O` character."""
    chars = [list("김 씨"), list("서울")]
    gold = [["B-PS", "O", "O"], ["B-LC", "I-LC"]]
    outside = ner_scores(chars, gold, gold)
    assert outside["entity_f1"] == outside["char_f1"] == 100.0
    model = ner_scores(chars, gold, gold, boundaries=[("O", "B-PS"), ("O", "O")])
    # PS: 1 gold, 2 predicted -> F1 2/3; LC: 1/1 -> 1. Macro over the two types.
    assert model["entity_f1"] == pytest.approx(100 * (2 / 3 + 1) / 2)
    assert model["char_f1"] < 100.0
    assert ner_scores(chars, gold, gold, boundaries=[("O", "O")] * 2) == outside
    with pytest.raises(ValueError, match="boundary pairs"):
        ner_scores(chars, gold, gold, boundaries=[("O", "O")])
