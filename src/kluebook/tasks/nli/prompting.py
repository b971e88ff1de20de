"""KLUE-NLI prompted: 참, 거짓 or 알 수 없음, ranked by log-likelihood (see book/prompting.md).

The choices are Korean answers to "is the hypothesis true, given the premise?", in the order
of `LABELS`; a generated answer is read as one of them written exactly.
"""

from kluebook.tasks.prompt_answers import LabelAnswers, other_than
from kluebook.tasks.prompt_items import PromptItem

from .data import LABELS

# The answer for each label, in the order of LABELS.
CHOICES = ("참", "거짓", "알 수 없음")
_LABEL_OF_CHOICE = dict(zip(CHOICES, LABELS, strict=True))
_ANSWERS = LabelAnswers(LABELS)
parse_answer = _ANSWERS.parse_answer
rank_prediction = _ANSWERS.rank_prediction


def prompt_items(records: list[dict]) -> list[PromptItem]:
    return [
        PromptItem(
            key=r["guid"],
            fields={"premise": r["premise"], "hypothesis": r["hypothesis"]},
            answer=CHOICES[LABELS.index(r["gold_label"])],
            choices=CHOICES,
        )
        for r in records
    ]


def fallback_prediction(item: PromptItem) -> dict:
    """A label other than the gold one."""
    return {"guid": item.key, "label": other_than(LABELS, _LABEL_OF_CHOICE[item.answer])}
