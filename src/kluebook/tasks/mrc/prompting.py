"""KLUE-MRC prompted: the answer text, or 없음 for no answer (see book/prompting.md).

The answer is one non-empty line: the answer text, or exactly `없음` (in the template's words)
for an unanswerable question (the empty prediction of the official scoring). Two lines or an
empty answer are unreadable. An answer text that is no span of the passage is ungrounded: it is
counted, and scored as it is, since the official EM and ROUGE-W give a near miss the credit they
give it.
"""

from kluebook.tasks.prompt_answers import (
    NOTHING,
    UNREADABLE,
    refuse_ranking,
)
from kluebook.tasks.prompt_items import PromptItem, Ungrounded

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


def read_answer_text(body: str) -> str | None:
    """The predicted answer ("" for no answer) of an answer's body, or None if unreadable."""
    if not body or "\n" in body:
        return None
    return "" if body == NOTHING else body


def parse_answer(item: PromptItem, body: str) -> dict | Ungrounded | None:
    answer = read_answer_text(body)
    if answer is None:
        return None
    line = {"guid": item.key, "answer": answer}
    if answer not in item.fields["context"]:
        return Ungrounded("no span of the passage", line)
    return line


def fallback_prediction(item: PromptItem) -> dict:
    """No answer for an answerable question, an answer for an unanswerable one."""
    answerable = item.answer != NOTHING
    return {"guid": item.key, "answer": "" if answerable else UNREADABLE}
