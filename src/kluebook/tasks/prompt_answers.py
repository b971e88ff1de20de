"""Reading a model's answer: the rules every task's parser shares (no task is named here).

A generated answer is first cut to its body (`answer_text`, by the run's template): a
reasoning model's trace (`<think>…</think>` and the like) is cut (`without_reasoning`), unless
the template turns that off (`cut_reasoning: false`); surrounding whitespace and a repeated
answer prefix are dropped, and the answer ends at its first blank line (a model that goes on to
write a next example has finished its answer there) (`answer_body`); a whole answer in the
template's own words is read back in the task's (`PromptTemplate.read_back`). What the body
must look like is the task's rule; a body that breaks it is unreadable (None), never guessed
at. The raw answer, trace included, is what the predictions keep.

A ranked answer is the log-likelihood of each choice of a closed set; `choice_probabilities`
turns them into probabilities over that set, in the order of the choices.
"""

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kluebook.common.errors import KluebookError
from kluebook.tasks.prompt_items import PromptItem, PromptTemplate

# The word for "nothing" in an answer: no answer to a question, an empty dialogue state.
NOTHING = "없음"
# A value that matches no gold value, for the fallback of an unreadable answer.
UNREADABLE = "(unparsable)"


# The tags reasoning models wrap their trace in (`think` for DeepSeek-R1, QwQ and Qwen3).
TRACE_TAGS = "think|thinking|reasoning"
CLOSED_TRACE = re.compile(rf"<({TRACE_TAGS})>.*?</\1>", re.DOTALL)
TRACE_END = re.compile(rf"</(?:{TRACE_TAGS})>")
TRACE_START = re.compile(rf"<(?:{TRACE_TAGS})>")


def without_reasoning(text: str) -> str:
    """`text` without its reasoning trace: each closed `<think>…</think>` dropped, then what
    precedes a closing tag left alone (its opening tag was the prompt's, as some chat templates
    write it), and what follows an opening tag never closed (the budget ran out mid-thought)."""
    text = CLOSED_TRACE.sub("", text)
    ends = list(TRACE_END.finditer(text))
    if ends:
        text = text[ends[-1].end() :]
    start = TRACE_START.search(text)
    return text[: start.start()] if start else text


def answer_body(text: str, prefix: str) -> str:
    """The answer as written after the prompt: surrounding whitespace and a repeated `prefix`
    dropped, up to its first blank line."""
    body = text.strip()
    if prefix:
        body = body.removeprefix(prefix).strip()
    kept = []
    for line in body.splitlines():
        if not line.strip():
            break
        kept.append(line)
    return "\n".join(kept).strip()


def answer_text(template: PromptTemplate, text: str) -> str:
    """A generated answer as the task's parser reads it: its reasoning trace cut (unless the
    template keeps it), its body (`answer_body`), in the task's words."""
    kept = without_reasoning(text) if template.cut_reasoning else text
    return template.read_back(answer_body(kept, template.answer_prefix))


def read_choice(body: str, choices: Sequence[str]) -> int | None:
    """The index of the choice that an answer's body is, exactly; None if it is none of them."""
    return choices.index(body) if body in choices else None


def choice_probabilities(choices: Sequence[str], logprobs: Mapping[str, float]) -> list[float]:
    """Probabilities over the closed set `choices`, a softmax of their log-likelihoods, in
    the order of `choices` (a choice without a log-likelihood is an error of the caller)."""
    missing = [choice for choice in choices if choice not in logprobs]
    if missing:
        raise ValueError(f"no log-likelihood for the choice(s) {missing}")
    values = [float(logprobs[choice]) for choice in choices]
    if any(math.isnan(value) or value == math.inf for value in values):
        raise ValueError(f"log-likelihoods must be finite or -inf, got {values}")
    top = max(values)
    if top == -math.inf:
        raise ValueError("every choice has a log-likelihood of -inf")
    weights = [math.exp(value - top) for value in values]
    total = sum(weights)
    return [weight / total for weight in weights]


def ranked_choice(choices: Sequence[str], logprobs: Mapping[str, float]) -> int:
    """The index of the most likely of `choices`."""
    return most_likely(choice_probabilities(choices, logprobs))


def most_likely(probabilities: Sequence[float]) -> int:
    """The index of the most probable choice; a tie goes to the first in order."""
    return max(range(len(probabilities)), key=lambda index: (probabilities[index], -index))


def other_than(options: Sequence[str], gold: str) -> str:
    """The first of `options` that is not `gold`: a wrong answer, for the fallback."""
    return next(option for option in options if option != gold)


def refuse_ranking(item: PromptItem, logprobs: Mapping[str, float]) -> dict:
    """The `rank_prediction` of a task answered by generation: it has no closed set to rank."""
    raise KluebookError(
        f"{item.key}: this task is answered by generation (mode: generate), not by ranking"
    )


@dataclass(frozen=True)
class LabelAnswers:
    """How a task that answers with one of its labels reads an answer: each of an item's
    `choices` stands for the label of the same position in `labels`. Its two methods are the
    task's `parse_answer` and `rank_prediction`."""

    labels: Sequence[str]

    def parse_answer(self, item: PromptItem, body: str) -> dict | None:
        """The predictions line of an answer that is exactly one of the choices; None if it is
        none of them."""
        index = read_choice(body, item.choices)
        return None if index is None else {"guid": item.key, "label": self.labels[index]}

    def rank_prediction(self, item: PromptItem, logprobs: Mapping[str, float]) -> dict:
        """The predictions line of the most likely of the choices."""
        return {"guid": item.key, "label": self.labels[ranked_choice(item.choices, logprobs)]}
