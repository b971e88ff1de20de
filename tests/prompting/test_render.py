"""Rendering: the prompt's layout, the chat template where a tokenizer has one, the template's
digest as a run input."""

import hashlib

import pytest

from kluebook.common.errors import KluebookError
from kluebook.methods.prompted import template_digest
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.prompting.render import chat_prompt, render_prompt
from kluebook.prompting.tiny_causal_lm import tiny_causal_tokenizer
from kluebook.tasks import get_task
from kluebook.tasks.prompt_items import PromptItem, PromptTemplate

TEMPLATE = PromptTemplate(
    mode="generate",
    instruction="문장의 주제를 고르세요.",
    answer_format="한 단어로 답하세요.",
    query="제목: {title}\n날짜: {date}",
    answer_prefix="답:",
)


def item(key, title, answer, date="2016"):
    return PromptItem(key=key, fields={"title": title, "date": date}, answer=answer)


def test_demonstrations_come_answered_then_the_query_with_the_answer_prefix():
    shots = [item("a", "여당 대표 선출", "정치"), item("b", "수출 증가", "경제")]
    assert render_prompt(TEMPLATE, shots, item("q", "리그 개막", "스포츠")) == (
        "문장의 주제를 고르세요.\n한 단어로 답하세요.\n\n"
        "제목: 여당 대표 선출\n날짜: 2016\n답: 정치\n\n"
        "제목: 수출 증가\n날짜: 2016\n답: 경제\n\n"
        "제목: 리그 개막\n날짜: 2016\n답:"
    )


def test_zero_shots_is_the_instruction_and_the_query():
    text = render_prompt(TEMPLATE, [], item("q", "리그 개막", "스포츠"))
    assert (
        text == "문장의 주제를 고르세요.\n한 단어로 답하세요.\n\n제목: 리그 개막\n날짜: 2016\n답:"
    )
    assert "스포츠" not in text  # the query's own answer is never shown


def test_a_field_the_items_lack_is_named_in_one_line():
    lacking = PromptItem(key="q7", fields={"title": "리그 개막"}, answer="스포츠")
    with pytest.raises(KluebookError) as error:
        render_prompt(TEMPLATE, [], lacking)
    message = str(error.value)
    assert "\n" not in message
    assert "'date'" in message and "'q7'" in message and "title" in message


def test_a_chat_template_makes_the_prompt_the_users_turn_and_opens_the_assistants():
    tokenizer = tiny_causal_tokenizer(["제목 답 리그 개막"], vocab_size=100)
    assert chat_prompt("제목: 리그 개막\n답:", tokenizer) == (
        "<|im_start|>user\n제목: 리그 개막\n답:<|im_end|>\n<|im_start|>assistant\n"
    )
    tokenizer.chat_template = None
    assert chat_prompt("제목: 리그 개막\n답:", tokenizer) == "제목: 리그 개막\n답:"


def test_the_template_digest_is_the_files_content_and_follows_its_edits(prompted_task):
    task = get_task(prompted_task)
    path = task.folder / "prompts" / "standard.yaml"
    original = path.read_bytes()
    assert template_digest(task) == hashlib.sha256(original).hexdigest()
    try:
        path.write_bytes(original.replace("고르세요".encode(), "고르십시오".encode()))
        assert template_digest(task) != hashlib.sha256(original).hexdigest()
    finally:
        path.write_bytes(original)


def test_demonstrations_are_written_in_the_templates_answer_words():
    template = task_template("nli", "reworded")
    prompting = task_prompting("nli")
    record = {"guid": "g", "premise": "p", "hypothesis": "h", "gold_label": "neutral"}
    shot = prompting.prompt_items([record])[0]
    assert render_prompt(template, [shot], shot).split("\n\n")[1].endswith("답: 모름")


def test_the_tests_own_task_meets_the_contract(prompted_task):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    assert template.mode == "rank" and template.answer_prefix == "주제:"
    assert callable(prompting.parse_answer)


def test_a_task_without_a_template_has_no_digest(prompted_task):
    path = get_task(prompted_task).folder / "prompts" / "standard.yaml"
    moved = path.rename(path.with_suffix(".moved"))
    try:
        with pytest.raises(KluebookError, match="no prompt template"):
            template_digest(get_task(prompted_task))
    finally:
        moved.rename(path)
