"""A reasoning model's trace is cut before its answer is read (the template's `cut_reasoning`,
on by default), and the raw answer, trace included, is what the predictions keep."""

import pytest

from kluebook.prompting.answering import answer_items
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.prompting.render import item_block
from kluebook.tasks.prompt_answers import without_reasoning

from .test_answering import ScriptedModel


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("<think>정치일까? 아니, 스포츠다.</think>\n\n스포츠", "스포츠"),
        ("경기 결과를 다룬다.</think>스포츠", "스포츠"),  # the opening tag was the prompt's
        ("<thinking>a</thinking>스포츠", "스포츠"),
        ("<think>끝나지 않은 생각", ""),  # the budget ran out mid-thought: no answer
        ("스포츠", "스포츠"),
    ],
)
def test_the_trace_is_cut_and_the_answer_kept(raw, answer):
    assert without_reasoning(raw).strip() == answer


def test_a_traced_answer_is_read_unless_the_template_turns_the_cut_off(prompted_task, split_items):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    _, dev = split_items
    raw = ["<think>경기 이야기다</think> 스포츠", "<think>아직 생각 중"]
    answers = answer_items(ScriptedModel(raw), template, prompting, dev[:2], [], "generate")
    assert template.cut_reasoning
    blocks = [item_block(template, item) for item in dev[:2]]
    assert answers.predictions[0] == {
        "guid": dev[0].key,
        "label": "스포츠",
        "raw_answer": raw[0],
        "item_prompt": blocks[0],
    }
    unread = {
        **prompting.fallback_prediction(dev[1]),
        "unparsable": True,
        "raw_answer": raw[1],
        "item_prompt": blocks[1],
    }
    assert answers.predictions[1] == unread
    assert answers.unparsable == 1 and answers.raw_answers == raw

    kept = template.model_copy(update={"cut_reasoning": False})
    uncut = answer_items(ScriptedModel(raw), kept, prompting, dev[:2], [], "generate")
    assert uncut.unparsable == 2
