import pytest

from kluebook.tasks.mrc.metric import mrc_scores, normalize_answer, question_scores, rouge_w_single


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("  Hello,  World!  ", "hello world"),  # case, ASCII punctuation, spaces
        ("서울\t 특별시\n", "서울 특별시"),  # every whitespace run becomes one space
        ("'토지'", "토지"),  # ASCII quotes are deleted
        ("《토지》", "《토지》"),  # CJK brackets are kept
        ("“박경리”·‘토지’…", "“박경리”·‘토지’…"),  # CJK quotes, middle dot, ellipsis kept
        ("a(b)c", "abc"),  # ASCII brackets are deleted, not replaced by a space
        ("1,000원", "1000원"),
        ("...", ""),
    ],
)
def test_normalization_removes_only_ascii_punctuation(raw, normalized):
    assert normalize_answer(raw) == normalized


def test_the_misplaced_bracket_pattern_is_replicated():
    # The official pattern matches one quote/bracket followed by the literal "()‘’" and puts a
    # space there: '가"()‘’나' -> '가 나'. Without it, deleting ASCII punctuation alone would give
    # '가‘’나'. A lone quote or bracket is untouched by the pattern.
    assert normalize_answer('가"()‘’나') == "가 나"
    assert normalize_answer("가《()‘’나") == "가 나"
    assert normalize_answer("가《나》()") == "가《나》"


def test_rouge_w_is_the_f1_of_the_longest_common_substring():
    # "서울특별시" vs "서울": L=2, P=2/5, R=2/2 -> F = 2*(2/5)/(7/5) = 4/7
    assert rouge_w_single("서울특별시", "서울") == pytest.approx(4 / 7)
    # "서울 시청" vs "시청 앞": L=2 ("시청"), P=2/5, R=2/4 -> F = (2/5)/(9/10) = 4/9
    assert rouge_w_single("서울 시청", "시청 앞") == pytest.approx(4 / 9)
    # A substring, not a subsequence: "abxcd" vs "abcd" share "ab" (L=2), not "abcd" (4):
    # P=2/5, R=2/4 -> 4/9
    assert rouge_w_single("abxcd", "abcd") == pytest.approx(4 / 9)
    assert rouge_w_single("동해", "서울") == 0.0
    assert rouge_w_single("", "서울") == 0.0


def test_empty_gold_scores_one_only_for_an_empty_prediction():
    assert rouge_w_single("", "") == 1.0
    assert rouge_w_single("서울", "") == 0.0


def test_question_scores_take_the_best_gold():
    # gold 1 "서울": 4/7 (above)
    # gold 2 "서울특별시청": L=5, P=5/5, R=5/6 -> F = (10/6)/(11/6) = 10/11
    exact, rouge = question_scores("서울특별시", ["서울", "서울특별시청"])
    assert exact == 0.0
    assert rouge == pytest.approx(10 / 11)
    assert question_scores("《토지》!", ["x", "《토지》"]) == (1.0, 1.0)  # after normalization


def test_unanswerable_questions_have_the_empty_gold():
    assert question_scores("", []) == (1.0, 1.0)
    assert question_scores("서울", []) == (0.0, 0.0)
    # A gold that normalizes to "" behaves the same way.
    assert question_scores("", ["..."]) == (1.0, 1.0)
    assert question_scores("서울", ["..."]) == (0.0, 0.0)


def test_scores_are_means_over_all_questions_x100():
    answers = [["서울"], [], ["서울"]]
    predictions = ["서울", "부산", "서울특별시"]
    # EM: 1, 0, 0 -> 100/3; ROUGE-W: 1, 0, 4/7 -> 100*(11/7)/3
    scores = mrc_scores(answers, predictions)
    assert scores["exact_match"] == pytest.approx(100 / 3)
    assert scores["rouge_w"] == pytest.approx(100 * (11 / 7) / 3)


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        mrc_scores([["a"]], [])
