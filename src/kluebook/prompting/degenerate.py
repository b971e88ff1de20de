"""Degenerate answers of a prompted run: how much of it is one answer, how much its parser could
not read, and what the two trivial predictors score on the same items: the constant one (every
item answered with the run's own most frequent answer) and the majority one (every item answered
with the train split's most frequent gold answer)."""

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence

from kluebook.prompting.answering import ITEM_PROMPT, RAW_ANSWER, UNPARSABLE, Answers
from kluebook.tasks.prompt_answers import answer_text
from kluebook.tasks.prompt_items import PromptItem, PromptTemplate, TaskPrompting, Ungrounded

SHOWN_ANSWER = 80  # characters of the most frequent answer a record keeps


def normalised(answer: str) -> str:
    """A raw answer as the spread counts it: stripped, its whitespace squeezed."""
    return " ".join(answer.split())


def answer_spread(answers: Answers) -> dict:
    """The most frequent answer (cut to `SHOWN_ANSWER` characters), the share of the items it
    answers, and the share of answers the parser could not read."""
    counts = Counter(normalised(raw) for raw in answers.raw_answers)
    top, count = counts.most_common(1)[0]
    total = len(answers.raw_answers)
    return {
        "top_answer": top[:SHOWN_ANSWER],
        "top_answer_share": round(count / total, 4),
        "fallback_share": round(answers.unparsable / total, 4),
    }


def constant_predictions(
    prompting: TaskPrompting, items: Sequence[PromptItem], answer: str, mode: str
) -> list[dict]:
    """Every item answered with `answer` (in the task's words), read as the run reads its
    model's answers: in rank mode the choice it names ranked first (an item without that
    choice: the fallback), in generate mode through the task's parser (its fallback where the
    parser cannot read it or gives an ungrounded answer no line)."""
    lines = []
    for item in items:
        if mode == "rank":
            if answer in item.choices:
                ranked = {c: 0.0 if c == answer else -1e9 for c in item.choices}
                lines.append(prompting.rank_prediction(item, ranked))
            else:
                lines.append(prompting.fallback_prediction(item))
        else:
            line = prompting.parse_answer(item, answer)
            if isinstance(line, Ungrounded):
                line = line.line
            lines.append(line if line is not None else prompting.fallback_prediction(item))
    return lines


def baselines(
    prompting: TaskPrompting,
    template: PromptTemplate,
    train: Sequence[PromptItem],
    dev: Sequence[PromptItem],
    answers: Answers,
    mode: str,
    score: Callable[[list[dict]], dict],
) -> dict[str, dict]:
    """The constant and the majority predictor on the dev items: the answer each gives (in
    the task's words) and its official metrics (`score` of its prediction lines)."""
    raw = Counter(normalised(raw) for raw in answers.raw_answers).most_common(1)[0][0]
    constant = template.read_back(raw) if mode == "rank" else answer_text(template, raw)
    majority = Counter(item.answer for item in train).most_common(1)[0][0] if train else ""
    found = {}
    for name, answer in (("constant", constant), ("majority", majority)):
        lines = constant_predictions(prompting, dev, answer, mode)
        found[name] = {"answer": answer[:SHOWN_ANSWER], "metrics": score(lines)}
    return found


def answers_digest(predictions: Sequence[dict]) -> str:
    """SHA-256 of a run's answers (its prediction lines without their choice scores, raw
    answers and item prompts): two runs of different models with the same digest gave the
    same answers."""
    left_out = ("choice_logprobs", RAW_ANSWER, UNPARSABLE, ITEM_PROMPT)
    lines = [{k: v for k, v in p.items() if k not in left_out} for p in predictions]
    text = json.dumps(lines, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()
