"""The two standard corrections of a ranked run, computed beside its uncorrected answers, never
instead of them. A template asks for them (`corrections: [contextual, pmi]`); each subtracts a
term of its own from every choice's score, the same for every item, and the task's
`rank_prediction` reads the corrected scores as it reads the uncorrected ones:

- `contextual` (contextual calibration, Zhao et al. 2021): the model's bias towards some
  choices is measured on content-free inputs: the query with each of its fields `N/A`, empty,
  then `[MASK]`, after the same demonstrations. The mean of their choice probabilities is the
  *prior*; each item's probabilities are divided by it and normalised again (its scores less
  the log of the prior);
- `pmi` (domain-conditional PMI scoring, Holtzman et al. 2021): each choice's log-likelihood
  less its log-likelihood after the answer prefix alone, which is how likely the choice is as
  an answer to nothing in particular. The difference already cancels a choice's length, so it
  is ranked as it is, whatever the template's `rank_normalisation`.

Both ask the same `LanguageModel` (a local model, or a server through its response cache): the
three content-free prompts and one prompt of the answer prefix, for the choice set that every
item of the split shares.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import (
    Answers,
    LanguageModel,
    RankRequest,
    Usage,
    continuation,
    ranking_scores,
)
from kluebook.prompting.render import render_prompt
from kluebook.tasks.prompt_answers import choice_probabilities
from kluebook.tasks.prompt_items import PromptItem, PromptTemplate, TaskPrompting

CONTENT_FREE = ("N/A", "", "[MASK]")  # what fills every field of a content-free query
# The least a prior may be: a choice the content-free inputs never give is not divided by zero.
SMALLEST_PRIOR = 1e-12


@dataclass(frozen=True)
class Corrected:
    """A split's ranking, corrected: the predictions lines its scores give, the scores (one
    mapping per item, as the ranking reads them), and what was measured to correct them."""

    predictions: list[dict]
    scores: list[dict[str, float]]
    measured: dict[str, float]  # contextual: the prior; pmi: the answer-alone log-likelihoods
    usage: Usage  # what measuring it asked of the model (the answering's own is `Answers`')


def correct_ranking(
    model: LanguageModel,
    template: PromptTemplate,
    prompting: TaskPrompting,
    items: list[PromptItem],
    demonstrations: list[PromptItem],
    answers: Answers,
) -> dict[str, Corrected]:
    """Every correction the template asks for, by name, of a ranked split's `answers` (none
    for a run that answered by generation)."""
    if not template.corrections or not answers.choice_logprobs:
        return {}
    choices = shared_choices(items)
    found = {}
    for name in template.corrections:
        before = model.usage
        if name == "contextual":
            measured = content_free_prior(model, template, demonstrations, choices)
            subtracted = {c: float(np.log(max(p, SMALLEST_PRIOR))) for c, p in measured.items()}
            ranked = [ranking_scores(template, own) for own in answers.choice_logprobs]
        else:
            measured = subtracted = answer_alone(model, template, choices)
            ranked = answers.choice_logprobs
        scores = [{c: own[c] - subtracted[c] for c in choices} for own in ranked]
        lines = [prompting.rank_prediction(i, s) for i, s in zip(items, scores, strict=True)]
        found[name] = Corrected(lines, scores, measured, model.usage - before)
    return found


def shared_choices(items: Sequence[PromptItem]) -> tuple[str, ...]:
    """The choice set every item has: a correction is measured once for the split."""
    sets = {item.choices for item in items}
    if len(sets) != 1:
        raise KluebookError("corrections need one choice set shared by every item of the split")
    return sets.pop()


def content_free_prior(
    model: LanguageModel,
    template: PromptTemplate,
    demonstrations: list[PromptItem],
    choices: tuple[str, ...],
) -> dict[str, float]:
    """The mean choice probabilities of the content-free queries (`CONTENT_FREE`), ranked as
    the template ranks."""
    blanks = [
        PromptItem("content-free", dict.fromkeys(template.fields, text), "", choices)
        for text in CONTENT_FREE
    ]
    prompts = [model.model_input(render_prompt(template, demonstrations, b)) for b in blanks]
    rows = [
        choice_probabilities(choices, ranking_scores(template, scored))
        for scored in _scored(model, template, prompts, choices)
    ]
    return dict(zip(choices, np.mean(rows, axis=0).tolist(), strict=True))


def answer_alone(
    model: LanguageModel, template: PromptTemplate, choices: tuple[str, ...]
) -> dict[str, float]:
    """Each choice's log-likelihood after the answer prefix alone."""
    (scored,) = _scored(model, template, [model.model_input(template.answer_prefix)], choices)
    return scored


def _scored(model, template, prompts, choices) -> list[dict[str, float]]:
    requests = [
        RankRequest(p, [continuation(p, template.written(c)) for c in choices]) for p in prompts
    ]
    return [
        dict(zip(choices, found.logprobs, strict=True)) for found in model.loglikelihoods(requests)
    ]
