"""Answering, with a scripted model: what reaches the task's functions and what is counted."""

import pytest

from kluebook.errors import KluebookError
from kluebook.prompt_items import PromptItem
from kluebook.prompting.answering import answer_items, continuation
from kluebook.prompting.registry import task_prompting


class ScriptedModel:
    """Answers from a script and keeps what it was asked."""

    def __init__(self, answers=(), scores=None):
        self.answers, self.scores, self.asked = list(answers), scores or {}, []

    def model_input(self, text):
        return f"<turn>{text}"

    def generate(self, prompts, max_new_tokens):
        self.asked.append(("generate", list(prompts), max_new_tokens))
        return self.answers[: len(prompts)]

    def loglikelihoods(self, requests):
        self.asked.append(("rank", list(requests)))
        return [self.scores.get(answer.strip(), -10.0) for _, answer in requests]


def test_unreadable_answers_are_scored_as_the_fallback_and_counted(prompted_task, split_items):
    template, prompting = task_prompting(prompted_task)
    train, dev = split_items
    model = ScriptedModel([" 스포츠", "모르겠습니다", "정치 기사입니다", ""])
    answers = answer_items(model, template, prompting, dev[:4], train[:1], mode="generate")
    assert answers.unparsable == 2
    assert answers.predictions == [
        {"guid": dev[0].key, "label": "스포츠"},
        prompting.fallback_prediction(dev[1]),
        {"guid": dev[2].key, "label": "정치"},
        prompting.fallback_prediction(dev[3]),
    ]
    assert answers.raw_answers == model.answers
    ((_, prompts, budget),) = model.asked
    assert budget == template.max_new_tokens == 6
    assert answers.first_prompt == prompts[0] and prompts[0].startswith("<turn>")
    assert answers.first_answer == " 스포츠"


def test_rank_mode_asks_every_choice_after_every_prompt(prompted_task, split_items):
    template, prompting = task_prompting(prompted_task)
    _, dev = split_items
    model = ScriptedModel(scores={"세계": -1.0, "경제": -2.0})
    answers = answer_items(model, template, prompting, dev[:2], [])
    ((_, requests),) = model.asked
    assert len(requests) == 2 * 7
    assert [answer for _, answer in requests[:7]] == [f" {c}" for c in dev[0].choices]
    assert answers.predictions == [{"guid": item.key, "label": "세계"} for item in dev[:2]]
    assert answers.choice_logprobs[0]["경제"] == -2.0 and answers.raw_answers == ["세계", "세계"]
    assert answers.unparsable == 0


def test_an_answer_follows_a_space_unless_the_prompt_ends_in_one():
    assert continuation("주제:", "정치") == " 정치"
    assert continuation("<|im_start|>assistant\n", "정치") == "정치"


def test_rank_mode_without_choices_and_an_empty_split_are_one_line(prompted_task):
    template, prompting = task_prompting(prompted_task)
    bare = PromptItem(key="k1", fields={"title": "리그 개막"}, answer="스포츠")
    with pytest.raises(KluebookError, match="item 'k1' has no choices: rank mode"):
        answer_items(ScriptedModel(), template, prompting, [bare], [])
    with pytest.raises(KluebookError, match="no items to answer"):
        answer_items(ScriptedModel(), template, prompting, [], [])
