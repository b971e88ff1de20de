"""Answering, with a scripted model: what reaches the task's functions and what is counted."""

import pytest

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankScores, Usage, answer_items, continuation
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.tasks.prompt_items import PromptItem


class ScriptedModel:
    """Answers from a script and keeps what it was asked."""

    def __init__(self, answers=(), scores=None, crossings=0):
        self.answers, self.scores, self.asked = list(answers), scores or {}, []
        self.crossings = crossings
        self.usage = Usage()

    def model_input(self, text):
        return f"<turn>{text}"

    def generate(self, prompts, max_new_tokens):
        self.asked.append(("generate", list(prompts), max_new_tokens))
        self.usage += Usage(len(prompts), 0, 10 * len(prompts), max_new_tokens * len(prompts))
        return self.answers[: len(prompts)]

    def loglikelihoods(self, requests):
        self.asked.append(("rank", list(requests)))
        return [
            RankScores([self.scores.get(a.strip(), -10.0) for a in r.continuations], self.crossings)
            for r in requests
        ]


def test_unreadable_answers_are_scored_as_the_fallback_and_counted(prompted_task, split_items):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    train, dev = split_items
    model = ScriptedModel([" 스포츠", "모르겠습니다", "정치 기사입니다", ""])
    answers = answer_items(model, template, prompting, dev[:4], train[:1], mode="generate")
    assert answers.unparsable == 2
    unread = {"unparsable": True}  # each line keeps the raw answer; an unread one says so
    ((_, prompts, budget),) = model.asked
    # and the item's own block of its prompt: what its prompt ends with, the answer prefix last
    own = [{"item_prompt": line["item_prompt"]} for line in answers.predictions]
    for prompt, line in zip(prompts, own, strict=True):
        assert prompt.endswith("\n\n" + line["item_prompt"])
        assert line["item_prompt"].endswith(template.answer_prefix)
    assert own[0] != own[1] and dev[0].fields["title"] in own[0]["item_prompt"]
    assert answers.predictions == [
        {"guid": dev[0].key, "label": "스포츠", "raw_answer": " 스포츠", **own[0]},
        {**prompting.fallback_prediction(dev[1]), **unread, "raw_answer": "모르겠습니다", **own[1]},
        {"guid": dev[2].key, "label": "정치", "raw_answer": "정치 기사입니다", **own[2]},
        {**prompting.fallback_prediction(dev[3]), **unread, "raw_answer": "", **own[3]},
    ]
    assert answers.raw_answers == model.answers
    assert budget == template.max_new_tokens == 6
    assert answers.first_prompt == prompts[0] and prompts[0].startswith("<turn>")
    assert answers.first_answer == " 스포츠"


def test_rank_mode_asks_every_choice_after_every_prompt(prompted_task, split_items):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    _, dev = split_items
    model = ScriptedModel(scores={"세계": -1.0, "경제": -2.0}, crossings=3)
    answers = answer_items(model, template, prompting, dev[:2], [])
    ((_, requests),) = model.asked
    assert [request.continuations for request in requests] == [
        [f" {c}" for c in item.choices] for item in dev[:2]
    ]
    logprobs = {c: {"세계": -1.0, "경제": -2.0}.get(c, -10.0) for c in dev[0].choices}
    for request, line in zip(requests, answers.predictions, strict=True):
        assert request.prompt.endswith("\n\n" + line.pop("item_prompt"))
    assert answers.predictions == [
        {"guid": item.key, "label": "세계", "choice_logprobs": logprobs} for item in dev[:2]
    ]
    assert answers.choice_logprobs == [logprobs, logprobs] and answers.raw_answers == ["세계"] * 2
    assert answers.unparsable == 0 and answers.boundary_crossings == 6


def test_a_template_may_rank_by_log_likelihood_per_character(prompted_task, split_items):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    _, dev = split_items
    scores = {"생활문화": -4.0, "세계": -3.0}  # -1.0 and -1.5 a character
    for normalisation, best in (("none", "세계"), ("per_character", "생활문화")):
        ranked = template.model_copy(update={"rank_normalisation": normalisation})
        answers = answer_items(ScriptedModel(scores=scores), ranked, prompting, dev[:1], [])
        assert answers.raw_answers == [best] and answers.predictions[0]["label"] == best
        assert answers.predictions[0]["choice_logprobs"]["생활문화"] == -4.0  # not normalised
    assert template.rank_normalisation == "none"  # the default


def test_an_answer_follows_a_space_unless_the_prompt_ends_in_one():
    assert continuation("주제:", "정치") == " 정치"
    assert continuation("<|im_start|>assistant\n", "정치") == "정치"


def test_rank_mode_without_choices_and_an_empty_split_are_one_line(prompted_task):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    bare = PromptItem(key="k1", fields={"title": "리그 개막"}, answer="스포츠")
    with pytest.raises(KluebookError, match="item 'k1' has no choices: rank mode"):
        answer_items(ScriptedModel(), template, prompting, [bare], [])
    with pytest.raises(KluebookError, match="no items to answer"):
        answer_items(ScriptedModel(), template, prompting, [], [])


def test_rank_mode_asks_in_the_templates_words_and_keys_the_scores_by_the_tasks():
    template = task_template("nli", "reworded")
    prompting = task_prompting("nli")
    record = {"guid": "g", "premise": "p", "hypothesis": "h", "gold_label": "neutral"}
    items = prompting.prompt_items([record])
    model = ScriptedModel(scores={"모름": -0.5, "예": -2.0})
    answers = answer_items(model, template, prompting, items, [])
    ((_, requests),) = model.asked
    assert requests[0].continuations == [" 예", " 아니오", " 모름"]
    assert answers.predictions[0]["label"] == "neutral"
    assert answers.predictions[0]["choice_logprobs"] == {
        "참": -2.0,
        "거짓": -10.0,
        "알 수 없음": -0.5,
    }
    assert answers.raw_answers == ["모름"]


def test_answers_that_read_but_are_not_grounded_are_counted_apart_from_unparsable():
    """A random model's MRC answers all read as one line; those that are no span of the
    passage are counted as ungrounded (and scored as they are), two lines as unparsable."""
    template = task_template("mrc")
    prompting = task_prompting("mrc")
    records = [
        {
            "guid": f"q{i}",
            "context": "세종대왕이 한글을 만들었다",
            "question": "누가 한글을 만들었나?",
            "answers": [{"text": "세종대왕", "answer_start": 0}],
            "is_impossible": False,
        }
        for i in range(3)
    ]
    items = prompting.prompt_items(records)
    model = ScriptedModel([" 세종대왕", "훈민정음을 만든 임금", "세종\n대왕"])
    answers = answer_items(model, template, prompting, items, [])
    assert (answers.unparsable, answers.ungrounded) == (1, 1)
    assert [line["answer"] for line in answers.predictions] == [
        "세종대왕",
        "훈민정음을 만든 임금",
        prompting.fallback_prediction(items[2])["answer"],
    ]


def test_the_answers_keep_what_answering_them_asked_not_what_the_model_was_asked_before(
    prompted_task, split_items
):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    _, dev = split_items
    model = ScriptedModel(answers=["정치"] * 4)
    answer_items(model, template, prompting, dev[:4], [], mode="generate")
    answers = answer_items(model, template, prompting, dev[:2], [], mode="generate")
    budget = template.max_new_tokens
    assert model.usage == Usage(6, 0, 60, 6 * budget)
    assert answers.usage == Usage(2, 0, 20, 2 * budget) and answers.wall_time_s > 0
