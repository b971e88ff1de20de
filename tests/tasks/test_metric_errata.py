"""Each metric erratum's corrected variant against a case worked by hand, beside the official
number it corrects (which stays the headline)."""

import pytest

from kluebook.tasks.dp.metric import dp_scores
from kluebook.tasks.mrc import data as mrc
from kluebook.tasks.mrc.metric import mrc_scores, normalize_answer
from kluebook.tasks.ner.metric import ner_scores
from kluebook.tasks.wos.metric import pooled_slot_f1, slot_f1


def test_ner_character_f1_without_the_o_tag():
    # 4 characters: a PS entity of two, then two O; the official scoring adds an O at each end
    # (the [CLS] and last padded positions). The prediction misses the entity's second character.
    # Per tag (sklearn, zero_division=1 for tags in neither): B-PS 1, I-PS 0, O 8/9 (4 gold, 5
    # predicted, 4 right), and the 10 tags absent from both score 1.
    chars = [list("김철가다")]
    gold = [["B-PS", "I-PS", "O", "O"]]
    pred = [["B-PS", "O", "O", "O"]]
    scores = ner_scores(chars, gold, pred)
    assert scores["char_f1"] == pytest.approx(100 * (1 + 0 + 8 / 9 + 10) / 13)
    assert scores["char_f1_without_o"] == pytest.approx(100 * (1 + 0 + 10) / 12)


def test_dp_las_with_wrong_heads_as_errors_rather_than_a_pad_class():
    # The second eojeol's head is wrong: its predicted class is PAD, which the official macro
    # average counts as a third class scoring 0 (NP 1, VP 0, PAD 0). Corrected, the wrong-head
    # eojeol is a miss of VP and a false alarm of VP: NP 1, VP TP 0 -> 0; (1 + 0) / 2.
    scores = dp_scores([0, 1], [0, 0], ["NP", "VP"], ["NP", "VP"])
    assert scores["las"] == pytest.approx(100 / 3)
    assert scores["las_wrong_heads_as_errors"] == pytest.approx(50.0)
    # A class with a right and a wrong head (NP twice, word 2's head wrong): NP TP 1, FP 1,
    # FN 1 -> 1/2; VP 1 -> 3/4, where the official PAD-free average would say (2/3 + 1) / 2.
    scores = dp_scores([0, 1, 1], [0, 1, 0], ["VP", "NP", "NP"], ["VP", "NP", "NP"])
    assert scores["las_wrong_heads_as_errors"] == pytest.approx(75.0)
    assert scores["las"] == pytest.approx(100 * (1 + 2 / 3) / 3)


def test_mrc_bracketed_answer_with_the_bracket_pattern_as_meant():
    # Officially 《》 are never stripped: "《토지》" and "토지" differ (ROUGE-W: 2 of 4 characters).
    official = mrc_scores([["《토지》"]], ["토지"])
    assert official["exact_match"] == 0.0
    assert official["rouge_w"] == pytest.approx(100 * 2 * 1 * 0.5 / 1.5)
    assert mrc_scores([["《토지》"]], ["토지"], corrected=True) == {
        "exact_match": 100.0,
        "rouge_w": 100.0,
    }


def test_mrc_bracket_variant_separates_what_ascii_brackets_and_quotes_enclosed():
    # Officially the ASCII ( ) are deleted with the other ASCII punctuation: 이글스(일본) becomes
    # 이글스일본 and matches. As meant, the pattern turns them into spaces first: 이글스 일본, which
    # does not; ROUGE-W: longest common substring 이글스 (3), P 3/5, R 3/6 -> 6/11.
    assert mrc_scores([["이글스(일본)"]], ["이글스일본"]) == {
        "exact_match": 100.0,
        "rouge_w": 100.0,
    }
    corrected = mrc_scores([["이글스(일본)"]], ["이글스일본"], corrected=True)
    assert corrected["exact_match"] == 0.0
    assert corrected["rouge_w"] == pytest.approx(100 * 6 / 11)
    # The same for ' " < >: deleted officially, a space as meant.
    assert normalize_answer('"토지"<1>') == "토지1"
    assert normalize_answer('"토지"<1>', corrected=True) == "토지 1"
    # ‘’ (U+2018, U+2019) and 《》〈〉 are kept officially, stripped as meant.
    assert normalize_answer("‘토지’ 〈1〉") == "‘토지’ 〈1〉"
    assert normalize_answer("‘토지’ 〈1〉", corrected=True) == "토지 1"


def test_mrc_quotes_and_brackets_in_neither_pattern_stay_in_both_normalisations():
    for text in ("“토지”", "「토지」", "『토지』"):
        assert normalize_answer(text) == normalize_answer(text, corrected=True) == text
    assert mrc_scores([["“토지”"]], ["토지"], corrected=True)["exact_match"] == 0.0


def test_mrc_records_carry_both_normalisations():
    record = {"guid": "q0", "is_impossible": False, "answers": [{"text": "〈토지〉"}]}
    scores = mrc.score(
        [record, {**record, "guid": "q1"}], {"q0": {"answer": "토지"}, "q1": {"answer": "부산"}}
    )
    assert scores["exact_match"] == 0.0 and scores["exact_match_brackets_stripped"] == 50.0


def test_wos_slot_f1_pooled_over_turns_rather_than_averaged():
    # Turn 1 finds one of two slots (F1 2/3), turn 2 its only slot (F1 1): the official mean
    # of turns is 5/6; pooled, 2 true positives, 1 false negative, no false positive: 4/5.
    gold = [["관광-종류-공원", "관광-지역-서울 중앙"], ["택시-출발지-서울역"]]
    pred = [["관광-종류-공원"], ["택시-출발지-서울역"]]
    assert slot_f1(gold, pred) == pytest.approx(100 * 5 / 6)
    assert pooled_slot_f1(gold, pred) == pytest.approx(80.0)


def test_wos_pooled_slot_f1_of_turns_with_nothing_to_find():
    assert pooled_slot_f1([[], []], [[], []]) == 100.0
    assert pooled_slot_f1([[], []], [["식당-종류-한식당"], []]) == 0.0
