"""KLUE-STS prompted: a real similarity score from six ranked whole scores (see book/prompting.md).

The choices are "0" to "5". The predicted score is their expected value under the model,
sum(k * p(k)) with p the softmax of the six log-likelihoods: a real number in [0, 5], read by
the official scoring as the model output (Pearson r, and F1 after its 3.0 threshold).

A demonstration's answer is the gold score rounded to the nearest whole score, halves up,
except that it keeps the gold's side of the 3.0 threshold (a gold of 2.5 to 2.99 is written
"2"). A generated answer is read as one number from 0 to 5 (e.g. "3" or "3.5").
"""

import re

from kluebook.tasks.prompt_answers import choice_probabilities
from kluebook.tasks.prompt_items import PromptItem

from .data import target
from .metric import THRESHOLD

CHOICES = ("0", "1", "2", "3", "4", "5")
HIGHEST = float(CHOICES[-1])
_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")


def whole_score(value: float) -> str:
    """The gold score as a choice: the nearest whole score, on the gold's side of 3.0."""
    rounded = int(value + 0.5)
    if value < THRESHOLD <= rounded:
        rounded = int(THRESHOLD) - 1
    return str(min(max(rounded, 0), int(HIGHEST)))


def prompt_items(records: list[dict]) -> list[PromptItem]:
    return [
        PromptItem(
            key=r["guid"],
            fields={"sentence1": r["sentence1"], "sentence2": r["sentence2"]},
            answer=whole_score(target(r)),
            choices=CHOICES,
        )
        for r in records
    ]


def parse_answer(item: PromptItem, body: str) -> dict | None:
    if not _NUMBER.fullmatch(body) or float(body) > HIGHEST:
        return None
    return {"guid": item.key, "score": float(body)}


def rank_prediction(item: PromptItem, logprobs: dict[str, float]) -> dict:
    probabilities = choice_probabilities(item.choices, logprobs)
    expected = sum(float(choice) * p for choice, p in zip(item.choices, probabilities, strict=True))
    return {"guid": item.key, "score": expected}


def fallback_prediction(item: PromptItem) -> dict:
    """The far end of the scale, on the other side of the threshold from the gold."""
    return {"guid": item.key, "score": 0.0 if float(item.answer) >= THRESHOLD else HIGHEST}
