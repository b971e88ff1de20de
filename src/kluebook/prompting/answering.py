"""Every item of a split answered by a language model and turned into the task's prediction lines.

Two ways of answering (a template's `mode`):

- `rank`: the log-likelihood of each of the item's choices as the continuation of its prompt
  (the sum of the log-probabilities of the choice's tokens) goes to the task's
  `rank_prediction`, which picks the answer (and keeps the scores where a metric needs them);
- `generate`: the greedy continuation of the prompt, up to the template's `max_new_tokens`,
  goes, its reasoning trace cut (`without_reasoning`), to the task's `parse_answer`; an
  answer it cannot read is scored as the task's
  `fallback_prediction` (always wrong) and counted.

The model is any `LanguageModel`: a local causal LM (`local_lm`) or a server (`server_lm`).
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from kluebook.errors import KluebookError
from kluebook.prompt_answers import without_reasoning
from kluebook.prompt_items import PromptItem, PromptTemplate, TaskPrompting
from kluebook.prompting.render import render_prompt


class LanguageModel(Protocol):
    """What answering asks of a backend."""

    def model_input(self, text: str) -> str:
        """The rendered prompt as the model is given it (its chat template applied, if any)."""

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> list[str]:
        """The greedy continuation of each prompt, special tokens left out."""

    def loglikelihoods(self, requests: Sequence[tuple[str, str]]) -> list[float]:
        """For each (prompt, continuation), the sum of the continuation's token log-probs."""


@dataclass(frozen=True)
class Answers:
    """A split answered: what the run scores, shows and counts."""

    predictions: list[dict]  # one line per item, in the items' order, for the task's `score`
    raw_answers: list[str]  # the generated text; in rank mode the best-scored choice
    unparsable: int  # generated answers the task's parser could not read (scored as wrong)
    first_prompt: str  # the first item's prompt as the model was given it (the run page)
    first_answer: str  # the first item's raw answer
    choice_logprobs: list[dict[str, float]] = field(default_factory=list)  # rank mode only


def answer_items(
    model: LanguageModel,
    template: PromptTemplate,
    prompting: TaskPrompting,
    items: list[PromptItem],
    demonstrations: list[PromptItem],
    mode: Literal["rank", "generate"] | None = None,
) -> Answers:
    """Answer `items` (a dev split), each after the same `demonstrations`, in `mode` (the
    template's by default; `generate` also serves a rank task, through its parser)."""
    if not items:
        raise KluebookError("no items to answer: the split is empty")
    mode = mode or template.mode
    prompts = [model.model_input(render_prompt(template, demonstrations, item)) for item in items]
    if mode == "rank":
        return _ranked(model, prompting, items, prompts)
    raw = model.generate(prompts, template.max_new_tokens)
    predictions, unparsable = [], 0
    for item, text in zip(items, raw, strict=True):
        line = prompting.parse_answer(
            item, without_reasoning(text) if template.cut_reasoning else text
        )
        if line is None:
            unparsable += 1
            line = prompting.fallback_prediction(item)
        predictions.append(line)
    return Answers(predictions, raw, unparsable, prompts[0], raw[0])


def _ranked(model, prompting, items, prompts) -> Answers:
    for item in items:
        if not item.choices:
            raise KluebookError(
                f"item {item.key!r} has no choices: rank mode scores a closed answer set "
                "(the task's prompt_items gives none; use mode 'generate')"
            )
    requests = [
        (prompt, continuation(prompt, choice))
        for prompt, item in zip(prompts, items, strict=True)
        for choice in item.choices
    ]
    scores = iter(model.loglikelihoods(requests))
    scored = [{choice: next(scores) for choice in item.choices} for item in items]
    predictions = [prompting.rank_prediction(i, s) for i, s in zip(items, scored, strict=True)]
    best = [max(s, key=s.get) for s in scored]
    return Answers(predictions, best, 0, prompts[0], best[0], scored)


def continuation(prompt: str, answer: str) -> str:
    """`answer` as it follows `prompt`: after a space, unless the prompt ends in whitespace
    (an opened chat turn)."""
    return answer if not prompt or prompt[-1].isspace() else f" {answer}"
