"""YNAT prompted: the seven topic names, ranked by log-likelihood (see book/prompting.md).

The choices are the topic names themselves, in the order of `LABELS`; a generated answer is
read as one topic name written exactly.
"""

from kluebook.prompt_answers import other_than, own_template, rank_label, read_label
from kluebook.prompt_items import PromptItem

from .data import LABELS

TEMPLATE = own_template(__file__)


def prompt_items(records: list[dict]) -> list[PromptItem]:
    return [
        PromptItem(key=r["guid"], fields={"title": r["title"]}, answer=r["label"], choices=LABELS)
        for r in records
    ]


def parse_answer(item: PromptItem, text: str) -> dict | None:
    return read_label(item, text, TEMPLATE.answer_prefix, LABELS)


def rank_prediction(item: PromptItem, logprobs: dict[str, float]) -> dict:
    return rank_label(item, logprobs, LABELS)


def fallback_prediction(item: PromptItem) -> dict:
    """A topic other than the gold one."""
    return {"guid": item.key, "label": other_than(LABELS, item.answer)}
