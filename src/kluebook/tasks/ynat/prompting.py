"""YNAT prompted: the seven topic names, ranked by log-likelihood (see book/prompting.md).

The choices are the topic names themselves, in the order of `LABELS`; a generated answer is
read as one topic name written exactly.
"""

from kluebook.tasks.prompt_answers import LabelAnswers, other_than
from kluebook.tasks.prompt_items import PromptItem

from .data import LABELS

_ANSWERS = LabelAnswers(LABELS)
parse_answer = _ANSWERS.parse_answer
rank_prediction = _ANSWERS.rank_prediction


def prompt_items(records: list[dict]) -> list[PromptItem]:
    return [
        PromptItem(key=r["guid"], fields={"title": r["title"]}, answer=r["label"], choices=LABELS)
        for r in records
    ]


def fallback_prediction(item: PromptItem) -> dict:
    """A topic other than the gold one."""
    return {"guid": item.key, "label": other_than(LABELS, item.answer)}
