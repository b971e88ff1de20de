"""What the prompted notebook does around its lesson: set a prompted run up from its parameters,
open the language model that answers it, then write its answers and outcome as every run does
(`kluebook.notebook.steps`)."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import transformers
from pydantic import ValidationError

from kluebook.common.errors import KluebookError
from kluebook.common.paths import scrub
from kluebook.common.validation import first_problem
from kluebook.data.loading import data_dir_for, hub_dataset_revision
from kluebook.methods.interface import ServedBy
from kluebook.methods.prompted import PromptedParameters, PromptedRun, template_digest
from kluebook.methods.registry import method_named
from kluebook.notebook.steps import (
    Run,
    read_errata,
    seed_everything,
    set_display_options,
    write_outcome,
)
from kluebook.prompting.answering import Answers, LanguageModel, ranking_scores
from kluebook.prompting.calibration import DIGITS, calibration, gold_choices, item_probabilities
from kluebook.prompting.corrections import Corrected
from kluebook.prompting.degenerate import answer_spread, answers_digest, baselines
from kluebook.prompting.registry import task_prompting
from kluebook.prompting.render import render_prompt
from kluebook.prompting.server_options import server_options
from kluebook.tasks import get_task
from kluebook.tasks.prompt_items import PromptItem, PromptTemplate
from kluebook.training import checkpoints, devices
from kluebook.training.tiny_model import TINY_CAUSAL_LM

# The parameters the prompted notebook declares (`start_prompted_run`).
PROMPTED_PARAMETERS = PromptedParameters.names()


def start_prompted_run(namespace: dict) -> Run:
    """`start_run` for the prompted notebook: read its parameters (`PROMPTED_PARAMETERS`) as
    one typed `PromptedRun` and check it as the plan checks a run (`prompted_run`: a run by
    hand too), resolve the data and, for a local model, its revision; seed the random
    generators."""
    devices.keep_one_gpu()
    missing = [name for name in PROMPTED_PARAMETERS if name not in namespace]
    if missing:
        raise KluebookError(f"the notebook does not declare the parameters {', '.join(missing)}")
    parameters = {name: namespace[name] for name in PROMPTED_PARAMETERS}
    settings = prompted_run(parameters)
    task = settings.task
    parameters.update(settings.extra)  # the overrides, typed
    asked = namespace.get("model_revision") or ""
    parameters["model_revision"] = (
        "" if settings.server else checkpoints.check_model(settings.model, asked)
    )
    parameters["data_revision"] = (
        hub_dataset_revision(task, namespace.get("data_revision") or "")
        if settings.data_source == "hub"
        else ""
    )
    read_errata(parameters, namespace)
    data_dir = data_dir_for(task, settings.data_source, settings.data_dir or None)
    output_dir = Path(parameters["output_dir"])
    output_dir.mkdir(parents=True, exist_ok=True)
    seed_everything(settings.seed)
    transformers.logging.set_verbosity_error()
    set_display_options()
    return Run(
        task=task, parameters=parameters, recipe=None, data_dir=data_dir, output_dir=output_dir
    )


def prompted_run(parameters: dict) -> PromptedRun:
    """The prompted notebook's parameters as the run they describe, validated where they enter
    this process (one line for a value of the wrong type), and checked as the plan checks a
    run's overrides (`Method.check_parameters`): its template there and valid, its query's
    fields the task's (on one generated item), its answer mode one it can answer in, its shots
    within its train limit."""
    task = get_task(parameters["task"])
    method = method_named(PromptedRun.method_name)
    declared = method.overrides(task).model_fields
    overrides = {name: value for name, value in parameters.items() if name in declared}
    server = None
    if parameters["base_url"]:
        server = ServedBy(
            base_url=parameters["base_url"],
            served_model=parameters["served_model"],
            options=server_options(parameters["server_options"]),
        )
    try:
        shared = {name: parameters[name] for name in PromptedRun.shared_names()}
        settings = PromptedRun(task=task, **shared, extra=overrides, server=server)
    except ValidationError as error:
        problem = first_problem(error)
        raise KluebookError(f"{problem.where}: {problem.message}, got {problem.given!r}") from None
    method.check_parameters(task, settings.extra, [settings.model], settings.profile)
    return settings


class Backend(LanguageModel, Protocol):
    """A prompted run's language model (`open_backend`): what answering asks of it, and what
    its outcome says of it (`provenance`: no path of this machine, no key, no address)."""

    def provenance(self) -> dict[str, Any]:
        """How the backend answered: its model, revision and the settings it ran with."""


def open_backend(
    run: Run, template: PromptTemplate, demonstrations: list[PromptItem], items: list[PromptItem]
) -> Backend:
    """The run's language model: the server at `base_url` where one is given, else the local
    causal LM `model` (the tiny stand-in is built on the run's prompts and answers)."""
    from kluebook.prompting.local_lm import open_local_lm  # lazy: torch, for prompted runs only
    from kluebook.prompting.server_lm import ServerLM  # optional: `prompted`
    from kluebook.prompting.server_options import server_options

    parameters = run.parameters
    if parameters["base_url"]:
        return ServerLM(
            parameters["base_url"],
            parameters["model"],
            options=server_options(parameters["server_options"]),
            expected=parameters["served_model"],
        )
    texts = [render_prompt(template, demonstrations, item) for item in items]
    texts += [item.answer for item in items]
    return open_local_lm(parameters["model"], parameters["model_revision"], tiny_texts=texts)


@dataclass(frozen=True)
class Answered:
    """What a prompted run did, handed to `finish_prompted_run`: the gold of its dev split, its
    answers to the `dev_items` (demonstrations drawn from `train_items`), the template and the
    language model (`backend`) that made them, and, for a ranked run, its calibration and its
    corrections (`calibrate`; {} for a run that answered by generation)."""

    gold: list[dict]
    answers: Answers
    template: PromptTemplate
    backend: Backend
    train_items: list[PromptItem]
    dev_items: list[PromptItem]
    calibrated: dict = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """The items of each split the run read."""
        return {"train": len(self.train_items), "dev": len(self.dev_items)}


def finish_prompted_run(run: Run, answered: Answered) -> dict:
    """`finish_run` for a prompted run: its outcome says how the model was asked (`Prompted`,
    with its template, the unparsable and the ungrounded answers, how degenerate its answers
    are and what the constant and majority predictors score on the same dev items; a ranked
    run's calibration and its corrections), and no checkpoint."""
    gold, answers, template = answered.gold, answered.answers, answered.template
    parameters = run.parameters
    asked = {
        k: scrub(v) if isinstance(v, str) else v for k, v in answered.backend.provenance().items()
    }
    asked["model"] = checkpoints.model_id(parameters["model"])
    mode = parameters["mode"] or template.mode
    facts = {
        "model_revision": prompted_model_revision(parameters, asked.get("revision") or ""),
        "recipe": {
            "shots": parameters["shots"],
            "mode": mode,
            "max_new_tokens": template.max_new_tokens,
        },
        "prompted": {
            "shots": parameters["shots"],
            "demonstration_seed": parameters["seed"],
            "mode": mode,
            "template": template.name,
            "template_digest": template_digest(run.task, template.name),
            "cut_reasoning": template.cut_reasoning,
            "unparsable": answers.unparsable,
            "ungrounded": answers.ungrounded,
            "backend": asked,
            "first_prompt": answers.first_prompt,
            "first_answer": answers.first_answer,
            "first_parsed": answers.predictions[0],
            **answer_spread(answers),
            "baselines": baselines(
                task_prompting(run.task.name),
                template,
                answered.train_items,
                answered.dev_items,
                answers,
                mode,
                lambda lines: run.score(gold, lines),
            ),
            "answers_digest": answers_digest(answers.predictions),
            "usage": answers.usage.as_dict(),
        },
        **answering_speed(answers),
    }
    if mode == "rank":
        facts["prompted"]["rank_normalisation"] = template.rank_normalisation
        facts["prompted"]["boundary_crossings"] = answers.boundary_crossings
        facts["prompted"] |= answered.calibrated
    return write_outcome(run, gold, answers.predictions, answered.counts, facts)


def calibrate(
    run: Run,
    gold: list[dict],
    template: PromptTemplate,
    items: list[PromptItem],
    answers: Answers,
    corrected: dict[str, Corrected],
) -> dict:
    """A ranked run's calibration (`kluebook.prompting.calibration`) and, for each of its
    `corrected` rankings, its official metrics (scored against `gold`), its calibration and
    what it measured; {} for a run that answered by generation."""
    if not answers.choice_logprobs:
        return {}
    gold_choice = gold_choices(items)
    ranked = [ranking_scores(template, own) for own in answers.choice_logprobs]
    facts = {"calibration": calibration(item_probabilities(items, ranked), gold_choice)}
    if corrected:
        facts["corrections"] = {
            name: {
                "metrics": run.score(gold, found.predictions),
                "calibration": calibration(item_probabilities(items, found.scores), gold_choice),
                "measured": {c: round(v, DIGITS) for c, v in found.measured.items()},
                "usage": found.usage.as_dict(),
            }
            for name, found in corrected.items()
        }
    return facts


def answering_speed(answers: Answers) -> dict:
    """The wall time of answering and its tokens per second (measurements, kept beside the
    run's other timings, not in `prompted`)."""
    wall = answers.wall_time_s
    tokens = answers.usage.prompt_tokens + answers.usage.completion_tokens
    return {
        "answering_wall_time_s": round(wall, 3),
        "answering_tokens_per_second": round(tokens / wall, 1) if wall > 0 else None,
    }


def prompted_model_revision(parameters: dict, revision: str) -> str:
    """The hub commit a prompted run's model was loaded at, or where the model came from."""
    if revision:
        return revision
    if parameters["base_url"]:
        return "the server's"
    if parameters["model"] == TINY_CAUSAL_LM:
        return "built locally"
    if checkpoints.local_model(parameters["model"]) is not None:
        return f"local folder: {checkpoints.model_id(parameters['model'])}"
    return "unknown"
