"""KLUE-MRC prompted: the answer text, or 없음 for no answer (see book/prompting.md).

The answer is one non-empty line: the answer text, or exactly `없음` for an unanswerable
question (the empty prediction of the official scoring). Two lines or an empty answer are
unreadable. The text is not required to occur in the passage: the official EM and ROUGE-W give
a near miss the credit they give it.
"""

from kluebook.tasks.prompt_answers import (
    NOTHING,
    UNREADABLE,
    answer_body,
    own_template,
    refuse_ranking,
)
from kluebook.tasks.prompt_items import PromptItem

TEMPLATE = own_template(__file__)

rank_prediction = refuse_ranking


def prompt_items(records: list[dict]) -> list[PromptItem]:
    return [
        PromptItem(
            key=r["guid"],
            fields={"context": r["context"], "question": r["question"]},
            answer=NOTHING if r["is_impossible"] else r["answers"][0]["text"],
        )
        for r in records
    ]


def read_answer_text(text: str) -> str | None:
    """The predicted answer ("" for no answer) of a generated answer, or None if unreadable."""
    body = answer_body(text, TEMPLATE.answer_prefix)
    if not body or "\n" in body:
        return None
    return "" if body == NOTHING else body


def parse_answer(item: PromptItem, text: str) -> dict | None:
    answer = read_answer_text(text)
    return None if answer is None else {"guid": item.key, "answer": answer}


def fallback_prediction(item: PromptItem) -> dict:
    """No answer for an answerable question, an answer for an unanswerable one."""
    answerable = item.answer != NOTHING
    return {"guid": item.key, "answer": "" if answerable else UNREADABLE}
