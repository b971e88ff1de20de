"""Every item of a split answered by a language model and turned into the task's prediction lines.

Two ways of answering (a template's `mode`):

- `rank`: the log-likelihood of each of the item's choices (written in the template's words)
  as the continuation of its prompt goes to the task's `rank_prediction`, which picks the
  answer (and keeps the scores where a metric needs them). All choices of an item are scored
  after the same tokens (`conditioning_length`): no choice's score holds prompt characters
  another's does not. The template may rank by log-likelihood per character of the choice
  (`rank_normalisation`); every predictions line keeps each choice's log-likelihood
  (`choice_logprobs`);
- `generate`: the greedy continuation of the prompt, up to the template's `max_new_tokens`,
  goes, cut to its body in the task's words (`answer_text`), to the task's `parse_answer`; an
  answer it cannot read is scored as the task's `fallback_prediction` (always wrong) and
  counted; one that reads but is not grounded in its item (`Ungrounded`) is counted apart, and
  scored as the line the task gives it (the fallback where it gives none). Every predictions
  line keeps the model's raw answer (`raw_answer`), and the fallback of an unreadable one says
  so (`unparsable`), for the run page's item browser; scoring reads neither.

Every line of either mode keeps the item's own block of its prompt (`item_prompt`: its query
and the answer prefix, after the instruction and demonstrations every item of the run shares),
for the item browser too.

The model is any `LanguageModel`: a local causal LM (`local_lm`) or a server (`server_lm`).
Each counts what it was asked (`Usage`); the answers keep what answering them asked and its
wall time.
"""

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Literal, Protocol

from kluebook.common.errors import KluebookError
from kluebook.prompting.render import item_block, render_prompt
from kluebook.tasks.prompt_answers import answer_text
from kluebook.tasks.prompt_items import PromptItem, PromptTemplate, TaskPrompting, Ungrounded


@dataclass(frozen=True)
class Usage:
    """What a backend was asked, counted the same way by both backends: requests (a local
    backend's prompts; a server's HTTP requests, a rank item's echoes each one), those answered
    from the response cache, the tokens the model read before what it wrote or scored
    (`prompt_tokens`) and those it wrote (`generate`) or scored as an answer (`rank`,
    `completion_tokens`), requests whose tokens a server did not report (`uncounted`, left
    out of the sums), and the prompt tokens a local backend did not run again because every
    prompt of the call shares them (`reused_prompt_tokens`: in `prompt_tokens` once, for the
    first prompt). Counts only: the same run counts the same."""

    requests: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    uncounted: int = 0
    reused_prompt_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __sub__(self, other: "Usage") -> "Usage":
        return Usage(*(getattr(self, f.name) - getattr(other, f.name) for f in fields(self)))

    def as_dict(self) -> dict:
        return asdict(self)


class LanguageModel(Protocol):
    """What answering asks of a backend."""

    usage: Usage  # everything it has been asked so far

    def model_input(self, text: str) -> str:
        """The rendered prompt as the model is given it (its chat template applied, if any)."""

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> list[str]:
        """The greedy continuation of each prompt, special tokens left out."""

    def loglikelihoods(self, requests: Sequence["RankRequest"]) -> list["RankScores"]:
        """For each request, every continuation scored after its prompt by the rank rule
        (`conditioning_length`)."""


@dataclass(frozen=True)
class RankRequest:
    """A prompt and the continuations to score after it, each a candidate answer as written."""

    prompt: str
    continuations: Sequence[str]


@dataclass(frozen=True)
class RankScores:
    """The continuations of one prompt, scored."""

    logprobs: list[float]  # one per continuation, in order
    crossings: int  # continuations whose whole text's tokens do not begin with the prompt's


def conditioning_length(prompt: Sequence, wholes: Sequence[Sequence]) -> tuple[int, int]:
    """The rank rule: how many leading tokens the prompt's tokens and every whole text's
    (prompt and continuation) tokens share, and how many wholes cross the prompt's end (do not
    begin with its tokens). A continuation's score is the sum of the log-probabilities of its
    whole text's tokens after the shared ones; with no crossing, those are its own tokens
    after the prompt's."""
    columns = zip(prompt, *wholes, strict=False)  # as long as the shortest
    length = next((i for i, column in enumerate(columns) if len(set(column)) > 1), None)
    if length is None:
        length = min(len(prompt), *(len(whole) for whole in wholes))
    if length == 0:
        raise KluebookError("a prompt and its answers share no first token: rank mode needs one")
    if any(len(whole) == length for whole in wholes):
        raise KluebookError("an answer adds no token to its prompt: rank mode cannot score it")
    crossings = sum(list(whole[: len(prompt)]) != list(prompt) for whole in wholes)
    return length, crossings


# The fields a generated answer's predictions line adds to the task's: the model's text, and
# whether the parser could not read it (the line is then the task's fallback).
RAW_ANSWER = "raw_answer"
UNPARSABLE = "unparsable"
# The field every prompted line adds: the item's own block of its prompt (`render.item_block`).
ITEM_PROMPT = "item_prompt"


@dataclass(frozen=True)
class Answers:
    """A split answered: what the run scores, shows and counts."""

    predictions: list[dict]  # one line per item, in the items' order, for the task's `score`
    raw_answers: list[str]  # the generated text; in rank mode the best-scored choice
    unparsable: int  # generated answers the task's parser could not read (scored as wrong)
    first_prompt: str  # the first item's prompt as the model was given it (the run page)
    first_answer: str  # the first item's raw answer
    choice_logprobs: list[dict[str, float]] = field(default_factory=list)  # rank mode only
    boundary_crossings: int = 0  # rank requests whose tokens crossed the prompt's end
    ungrounded: int = 0  # generated answers that read but are not grounded in their item
    # What answering the split asked of the model, and how long it took: how it was asked,
    # not what was answered (two sweeps to the same answers are equal).
    usage: Usage = field(default=Usage(), compare=False)
    wall_time_s: float = field(default=0.0, compare=False)


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
    started, before = time.perf_counter(), model.usage
    answers = _answered(model, template, prompting, items, demonstrations, mode or template.mode)
    cost = {"usage": model.usage - before, "wall_time_s": time.perf_counter() - started}
    return replace(answers, **cost)


def _answered(model, template, prompting, items, demonstrations, mode) -> Answers:
    prompts = [model.model_input(render_prompt(template, demonstrations, item)) for item in items]
    if mode == "rank":
        return _ranked(model, template, prompting, items, prompts)
    raw = model.generate(prompts, template.max_new_tokens)
    predictions, unparsable, ungrounded = [], 0, 0
    for item, text in zip(items, raw, strict=True):
        line = prompting.parse_answer(item, answer_text(template, text))
        if isinstance(line, Ungrounded):
            ungrounded += 1
            line = line.line if line.line is not None else prompting.fallback_prediction(item)
        elif line is None:
            unparsable += 1
            line = {**prompting.fallback_prediction(item), UNPARSABLE: True}
        predictions.append({**line, RAW_ANSWER: text, ITEM_PROMPT: item_block(template, item)})
    return Answers(predictions, raw, unparsable, prompts[0], raw[0], ungrounded=ungrounded)


def _ranked(model, template, prompting, items, prompts) -> Answers:
    for item in items:
        if not item.choices:
            raise KluebookError(
                f"item {item.key!r} has no choices: rank mode scores a closed answer set "
                "(the task's prompt_items gives none; use mode 'generate')"
            )
    requests = [
        RankRequest(prompt, [continuation(prompt, template.written(c)) for c in item.choices])
        for prompt, item in zip(prompts, items, strict=True)
    ]
    scores = model.loglikelihoods(requests)
    logprobs = [
        dict(zip(item.choices, found.logprobs, strict=True))
        for item, found in zip(items, scores, strict=True)
    ]
    predictions, best = [], []
    for item, own in zip(items, logprobs, strict=True):
        ranked = ranking_scores(template, own)
        line = prompting.rank_prediction(item, ranked)
        predictions.append(
            {**line, "choice_logprobs": own, ITEM_PROMPT: item_block(template, item)}
        )
        best.append(template.written(max(ranked, key=ranked.get)))
    crossings = sum(found.crossings for found in scores)
    return Answers(predictions, best, 0, prompts[0], best[0], logprobs, crossings)


def ranking_scores(template: PromptTemplate, logprobs: dict[str, float]) -> dict[str, float]:
    """The scores the choices are ranked by: their log-likelihoods, or those per character of
    the choice as the template writes it (`rank_normalisation: per_character`)."""
    if template.rank_normalisation != "per_character":
        return logprobs
    return {c: v / len(template.written(c)) for c, v in logprobs.items()}


def continuation(prompt: str, answer: str) -> str:
    """`answer` as it follows `prompt`: after a space, unless the prompt ends in whitespace
    (an opened chat turn)."""
    return answer if not prompt or prompt[-1].isspace() else f" {answer}"
