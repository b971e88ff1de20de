"""Each task's answer rules (book/prompting.md), on hand-worked answers."""

import math

import pytest

from kluebook.prompting.registry import task_prompting, task_template
from kluebook.tasks.dp.metric import DEPRELS
from kluebook.tasks.ner.metric import ENTITY_TYPES
from kluebook.tasks.prompt_answers import (
    answer_body,
    answer_text,
    choice_probabilities,
    most_likely,
    read_choice,
)
from kluebook.tasks.prompt_items import Ungrounded
from kluebook.tasks.re.data import RELATIONS


def module(task_name: str):
    return task_prompting(task_name)


def parse(task_name: str, item, text: str, template: str = "standard"):
    """A generated answer read as a run with `template` reads it."""
    found = task_template(task_name, template)
    prompting = task_prompting(task_name)
    return prompting.parse_answer(item, answer_text(found, text))


class TestSharedRules:
    def test_the_body_drops_whitespace_and_a_repeated_prefix(self):
        assert answer_body("  답: 정치 \n", "답:") == "정치"
        assert answer_body("정치", "답:") == "정치"

    def test_the_body_ends_at_the_first_blank_line(self):
        assert answer_body("1\t0\tVP\n2\t1\tNP\n \n문장: 다음", "답:") == "1\t0\tVP\n2\t1\tNP"

    def test_a_choice_is_read_only_when_written_exactly(self):
        assert read_choice("경제", ("정치", "경제")) == 1
        assert read_choice("경제입니다", ("정치", "경제")) is None

    def test_an_answer_is_cut_by_its_templates_prefix_and_read_back_from_its_words(self):
        item = item_of(
            "nli", {"guid": "g", "premise": "p", "hypothesis": "h", "gold_label": "neutral"}
        )
        assert parse("nli", item, "답: 모름", "reworded") == {"guid": "g", "label": "neutral"}
        assert parse("nli", item, "정답: 거짓\n\n전제: …", "brief")["label"] == "contradiction"
        assert parse("nli", item, "모름", "standard") is None

    def test_probabilities_are_a_softmax_in_the_order_of_the_choices(self):
        probabilities = choice_probabilities(("b", "a"), {"a": math.log(3), "b": 0.0})
        assert probabilities == pytest.approx([0.25, 0.75])
        assert choice_probabilities(("a", "b"), {"a": 0.0, "b": -math.inf}) == [1.0, 0.0]

    def test_a_missing_or_impossible_log_likelihood_is_refused(self):
        with pytest.raises(ValueError, match="'b'"):
            choice_probabilities(("a", "b"), {"a": 0.0})
        with pytest.raises(ValueError, match="-inf"):
            choice_probabilities(("a",), {"a": -math.inf})

    def test_a_tie_goes_to_the_first_choice(self):
        assert most_likely([0.4, 0.4, 0.2]) == 0
        assert most_likely([0.2, 0.4, 0.4]) == 1


def item_of(task_name: str, record: dict):
    return module(task_name).prompt_items([record])[0]


class TestClassification:
    def test_ynat_ranks_and_reads_topic_names(self):
        prompting = module("ynat")
        item = item_of("ynat", {"guid": "g", "title": "t", "label": "경제"})
        logprobs = {choice: -5.0 for choice in item.choices} | {"스포츠": -1.0}
        assert prompting.rank_prediction(item, logprobs) == {"guid": "g", "label": "스포츠"}
        assert parse("ynat", item, "답: 정치") == {"guid": "g", "label": "정치"}
        assert parse("ynat", item, "politics") is None
        assert prompting.fallback_prediction(item)["label"] != "경제"

    def test_nli_maps_the_korean_answers_to_labels(self):
        prompting = module("nli")
        record = {"guid": "g", "premise": "p", "hypothesis": "h", "gold_label": "neutral"}
        item = item_of("nli", record)
        assert item.answer == "알 수 없음"
        assert parse("nli", item, "거짓") == {"guid": "g", "label": "contradiction"}
        logprobs = {"참": -0.1, "거짓": -3.0, "알 수 없음": -2.0}
        assert prompting.rank_prediction(item, logprobs)["label"] == "entailment"
        assert prompting.fallback_prediction(item)["label"] != "neutral"

    def test_re_keeps_the_probabilities_of_all_relations_in_the_official_order(self):
        prompting = module("re")
        entity = {"word": "w", "start_idx": 0, "end_idx": 0, "type": "PER"}
        record = {
            "guid": "g",
            "sentence": "w x",
            "subject_entity": entity,
            "object_entity": {**entity, "start_idx": 2, "end_idx": 2, "type": "ORG"},
            "label": "per:employee_of",
        }
        item = item_of("re", record)
        assert item.fields["subject_type"] == "인물" and item.fields["object_type"] == "단체"
        logprobs = {choice: -10.0 for choice in item.choices} | {"인물:직위": -0.5}
        line = prompting.rank_prediction(item, logprobs)
        assert line["label"] == "per:title"
        assert len(line["probs"]) == len(RELATIONS) and sum(line["probs"]) == pytest.approx(1)
        assert line["probs"][RELATIONS.index("per:title")] == max(line["probs"])
        assert parse("re", item, "인물:소속")["label"] == "per:employee_of"
        assert prompting.fallback_prediction(item)["label"] == "no_relation"


class TestSts:
    def test_the_score_is_the_expected_whole_score(self):
        prompting = module("sts")
        record = {"guid": "g", "sentence1": "a", "sentence2": "b", "labels": {"label": 3.2}}
        item = item_of("sts", record)
        logprobs = {c: -math.inf for c in item.choices} | {"2": math.log(0.5), "4": math.log(0.5)}
        assert prompting.rank_prediction(item, logprobs)["score"] == pytest.approx(3.0)

    @pytest.mark.parametrize(
        ("gold", "written"),
        [(0.4, "0"), (2.49, "2"), (2.5, "2"), (2.99, "2"), (3.0, "3"), (3.5, "4"), (4.6, "5")],
    )
    def test_a_demonstration_rounds_to_a_whole_score_on_the_golds_side_of_3(self, gold, written):
        assert module("sts").whole_score(gold) == written

    def test_a_generated_score_is_one_number_from_0_to_5(self):
        item = item_of(
            "sts", {"guid": "g", "sentence1": "a", "sentence2": "b", "labels": {"label": 1}}
        )
        assert parse("sts", item, "답: 3.5") == {"guid": "g", "score": 3.5}
        for unreadable in ("6", "3점", "-1", "3.", ""):
            assert parse("sts", item, unreadable) is None, unreadable

    def test_the_fallback_is_on_the_other_side_of_the_threshold(self):
        prompting = module("sts")
        for gold, fallback in ((2.8, 5.0), (3.1, 0.0)):
            record = {"guid": "g", "sentence1": "a", "sentence2": "b", "labels": {"label": gold}}
            assert prompting.fallback_prediction(item_of("sts", record))["score"] == fallback


def ner_item(sentence: str):
    chars = list(sentence)
    return item_of(
        "ner", {"guid": "g", "sentence": sentence, "chars": chars, "tags": ["O"] * len(chars)}
    )


class TestNer:
    def test_marks_become_character_tags(self):
        item = ner_item("세종은 10:30에 왔다")
        line = parse("ner", item, "답: [세종:PS]은 [10:30:TI]에 왔다")
        assert line["tags"] == [
            *("B-PS", "I-PS", "O", "O"),
            *("B-TI", "I-TI", "I-TI", "I-TI", "I-TI"),
            *("O", "O", "O", "O"),
        ]

    def test_a_line_gives_outside_tags_at_both_boundaries(self):
        """What the official scoring takes for a model without [CLS] and padded positions."""
        line = parse("ner", ner_item("세종은 왔다"), "[세종:PS]은 왔다")
        assert line["boundary"] == ["O", "O"]
        assert module("ner").fallback_prediction(ner_item("세종은 왔다"))["boundary"] == ["O", "O"]

    def test_a_literal_bracket_of_the_sentence_stays_text(self):
        item = ner_item("[속보] 서울")
        assert parse("ner", item, "[속보] [서울:LC]")["tags"] == [
            *("O",) * 5,
            *("B-LC", "I-LC"),
        ]

    @pytest.mark.parametrize(
        "answer", ["[세종:XX]은 왔다", "[:PS]세종은 왔다", "[세종:PS]은\n왔다", ""]
    )
    def test_an_unknown_or_empty_mark_or_a_second_line_is_unreadable(self, answer):
        assert parse("ner", ner_item("세종은 왔다"), answer) is None

    @pytest.mark.parametrize("answer", ["[세종:PS]는 왔다", "세종\tPS", "[세종대왕:PS]은 왔다"])
    def test_a_copy_that_changes_the_sentence_is_ungrounded_and_has_no_line(self, answer):
        found = parse("ner", ner_item("세종은 왔다"), answer)
        assert isinstance(found, Ungrounded) and found.line is None

    def test_the_fallback_tags_every_character_wrong_and_predicts_no_entity(self):
        chars = list("세종 왔다")
        tags = ["B-PS", "I-PS", "O", "O", "O"]
        item = item_of("ner", {"guid": "g", "sentence": "", "chars": chars, "tags": tags})
        assert item.answer == "[세종:PS] 왔다"
        fallback = module("ner").fallback_prediction(item)["tags"]
        assert all(f != g for f, g in zip(fallback, tags, strict=True))
        assert not any(tag.startswith("B-") for tag in fallback)

    def test_every_entity_type_is_named_in_the_instruction(self):
        template = task_template("ner")
        assert all(kind in template.instruction for kind in ENTITY_TYPES)


def dp_item(size: int = 3):
    record = {
        "guid": "g",
        "sentence": " ".join(["w"] * size),
        "word_forms": ["w"] * size,
        "heads": [0] * size,
        "deprels": ["NP"] * size,
    }
    return item_of("dp", record)


class TestDp:
    def test_one_line_per_word_with_tabs_or_spaces(self):
        line = parse("dp", dp_item(), "답:\n1\t2\tNP_SBJ\n2  0  VP\n 3 2 NP_OBJ ")
        assert line == {"guid": "g", "heads": [2, 0, 2], "deprels": ["NP_SBJ", "VP", "NP_OBJ"]}

    @pytest.mark.parametrize(
        "answer",
        [
            "1\t2\tNP_SBJ\n2\t0\tVP",  # a word missing
            "1\t2\tNP_SBJ\n2\t0\tVP\n3\t2\tNP\n4\t2\tNP",  # a word too many
            "2\t2\tNP_SBJ\n1\t0\tVP\n3\t2\tNP",  # out of order
            "1\t2\tSBJ\n2\t0\tVP\n3\t2\tNP",  # an unknown relation
            "1\t2\n2\t0\tVP\n3\t2\tNP",  # a field missing
            "1\t-1\tNP\n2\t0\tVP\n3\t2\tNP",  # not a head number
        ],
    )
    def test_a_broken_structure_is_unreadable(self, answer):
        assert parse("dp", dp_item(), answer) is None

    def test_an_arc_to_a_word_that_is_not_there_is_ungrounded_and_has_no_line(self):
        found = parse("dp", dp_item(), "1\t4\tNP_SBJ\n2\t0\tVP\n3\t2\tNP")
        assert isinstance(found, Ungrounded) and found.line is None
        assert "3 eojeols" in found.why

    def test_the_fallback_gets_every_head_wrong(self):
        item = item_of(
            "dp",
            {
                "guid": "g",
                "sentence": "a b",
                "word_forms": ["a", "b"],
                "heads": [2, 0],
                "deprels": ["NP", "VP"],
            },
        )
        assert module("dp").fallback_prediction(item)["heads"] == [0, 1]

    def test_every_relation_is_listed_in_the_answer_format(self):
        template = task_template("dp")
        listed = template.answer_format.replace(",", " ").replace(".", " ").split()
        assert set(DEPRELS) <= set(listed)


def mrc_item(impossible: bool = False):
    record = {
        "guid": "g",
        "context": "세종대왕이 한글을 만들었다",
        "question": "q",
        "answers": [] if impossible else [{"text": "세종", "answer_start": 0}],
        "is_impossible": impossible,
    }
    return item_of("mrc", record)


class TestMrc:
    def test_the_answer_is_one_line_and_없음_is_no_answer(self):
        assert mrc_item(impossible=True).answer == "없음"
        assert parse("mrc", mrc_item(), "답: 세종대왕 ") == {
            "guid": "g",
            "answer": "세종대왕",
        }
        assert parse("mrc", mrc_item(), "없음") == {"guid": "g", "answer": ""}
        for unreadable in ("", "답:", "세종\n대왕"):
            assert parse("mrc", mrc_item(), unreadable) is None, unreadable

    def test_an_answer_that_is_no_span_of_the_passage_is_ungrounded_and_scored_as_it_is(self):
        found = parse("mrc", mrc_item(), "훈민정음")
        assert isinstance(found, Ungrounded)
        assert found.line == {"guid": "g", "answer": "훈민정음"}

    def test_the_reworded_template_writes_no_answer_in_its_own_words(self):
        assert parse("mrc", mrc_item(), "답: 답할 수 없음", "reworded")["answer"] == ""
        assert isinstance(parse("mrc", mrc_item(), "없음 ", "brief"), dict)

    def test_the_fallback_answers_the_opposite_way(self):
        prompting = module("mrc")
        assert prompting.fallback_prediction(mrc_item())["answer"] == ""
        assert prompting.fallback_prediction(mrc_item(impossible=True))["answer"] != ""


def wos_items():
    dialogue = [
        {"role": "user", "text": "안녕", "state": []},
        {"role": "sys", "text": "네"},
        {"role": "user", "text": "공원", "state": ["관광-종류-공원", "식당-이름-꿔=바로우"]},
    ]
    return module("wos").prompt_items([{"guid": "d", "domains": [], "dialogue": dialogue}])


class TestWos:
    def test_one_item_per_user_turn_with_the_dialogue_so_far(self):
        first, second = wos_items()
        assert (first.key, second.key) == (("d", 0), ("d", 1))
        assert second.fields["dialogue"] == "사용자: 안녕\n시스템: 네\n사용자: 공원"
        assert (first.answer, second.answer) == ("없음", "관광-종류=공원; 식당-이름=꿔=바로우")

    def test_pairs_become_domain_slot_value_strings(self):
        item = wos_items()[1]
        line = parse("wos", item, "답: 관광-종류=공원 ;식당-이름=꿔=바로우")
        assert line == {"guid": "d", "turn": 1, "state": ["관광-종류-공원", "식당-이름-꿔=바로우"]}
        assert parse("wos", item, "없음")["state"] == []

    def test_a_value_no_state_of_the_split_gives_its_slot_is_ungrounded(self):
        found = parse("wos", wos_items()[1], "관광-종류=공원; 숙소-예약 기간=2-3일")
        assert isinstance(found, Ungrounded) and "1 slot value" in found.why
        assert found.line["state"] == ["관광-종류-공원", "숙소-예약 기간-2-3일"]

    @pytest.mark.parametrize(
        "answer",
        [
            "관광종류=공원",  # no domain
            "관광-종류-이름=공원",  # a dash in the slot
            "관광-종류=",  # no value
            "관광-종류: 공원",  # no =
            "관광-종류=공원; 관광-종류=절",  # a slot named twice
            "관광-종류=공원;",  # an empty pair
            "관광-종류=공원\n관광-지역=서울",  # two lines
            "관광 - 종류=공원",  # spaces around the dash
            "",
        ],
    )
    def test_a_broken_structure_is_unreadable(self, answer):
        assert parse("wos", wos_items()[1], answer) is None

    def test_the_fallback_is_wrong_whether_or_not_the_gold_is_empty(self):
        empty, full = wos_items()
        assert module("wos").fallback_prediction(empty)["state"] != []
        assert module("wos").fallback_prediction(full)["state"] == []
