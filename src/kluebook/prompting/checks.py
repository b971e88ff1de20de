"""What a prompted run is checked for before it starts, each problem in one line: its task's
template (there, valid, its query and answer words the task's), its answer mode, its shot
count against a train limit, and a local model's tokenizer.

The runner checks every run of a sweep here where its parameters enter (the plan: a command's
options or a matrix), before any executes (`kluebook run` exits 2), and so does the prompted
notebook where they enter its process (a run by hand too): cheap, on one generated item
(`first_item`), not a generated data set. What only
the run can know (the train split's size, the prompts' lengths, the server's answers) is checked
where the run learns it, in one line too (`demonstrations`, `local_lm`, `server_lm`).
"""

from functools import cache
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.tasks import get_task, task_module
from kluebook.tasks.prompt_items import DEFAULT_TEMPLATE, PromptTemplate
from kluebook.training.tiny_model import TINY_CAUSAL_LM

ANSWER_MODES = ("rank", "generate")


def check_mode(task_name: str, template: PromptTemplate, mode: str) -> None:
    """`mode` is "" (the template's), `generate`, or `rank` for a task with a closed answer set."""
    if mode not in ("", *ANSWER_MODES):
        raise KluebookError(
            f"mode={mode!r}: choose rank or generate, or '' for {task_name}'s template "
            f"({template.mode})"
        )
    if mode == "rank" and template.mode != "rank":
        raise KluebookError(
            f"mode=rank: {task_name} has no closed answer set to rank (its template generates)"
        )


def check_prompted_parameters(task, extra: dict) -> None:
    """A prompted run of `task` with the parameters `extra`: its template is there and valid,
    its mode one it can answer in, and `shots` within `train_limit` where one is set."""
    name = extra.get("template") or DEFAULT_TEMPLATE
    template = task_template(task.name, name)  # one line for a missing or invalid template
    check_template(task.name, template)
    check_mode(task.name, template, extra.get("mode") or "")
    shots, limit = extra.get("shots") or 0, extra.get("train_limit") or 0
    if limit and shots > limit:
        raise KluebookError(
            f"shots={shots} is more than the {limit} train items of train_limit={limit}: "
            f"use at most {limit}"
        )


def check_template(task_name: str, template: PromptTemplate) -> None:
    """The template's query names only fields the task's items have, and, in rank mode, its
    answer words rename only the task's choices."""
    first = first_item(task_name)
    where = f"{task_name}'s template {template.name!r}"
    unknown = template.fields - set(first.fields)
    if unknown:
        raise KluebookError(
            f"{where}: the query names {', '.join(sorted(unknown))}, which its items do not "
            f"have (they have: {', '.join(sorted(first.fields))})"
        )
    if template.mode != "rank":
        return
    strangers = sorted(set(template.answer_words) - set(first.choices))
    written = [template.written(choice) for choice in first.choices]
    if strangers or len(set(written)) != len(written):
        extra = f"; not choices: {', '.join(strangers)}" if strangers else ""
        raise KluebookError(
            f"{where}: answer_words must rename the task's choices ({', '.join(first.choices)}) "
            f"each to a word of its own{extra}"
        )


@cache
def first_item(task_name: str):
    """A task's first generated dev item, as its prompting module makes it: generated alone (one
    of each of its smoke data's sizes), not as one of a whole smoke data set."""
    task = get_task(task_name)
    one_each = {size: 1 for size in task.smoke_data}
    first = task_module(task).generate(seed=0, **one_each)["dev"][:1]
    return task_prompting(task_name).prompt_items(first)[0]


def check_prompted_models(models: set[str]) -> None:
    """Every local folder among `models` has a tokenizer (a prompted run reads and writes
    text); hub models are checked where their files are downloaded, in the run."""
    folders = sorted(m for m in models if m != TINY_CAUSAL_LM and Path(m).is_dir())
    if folders:
        from kluebook.prompting.local_lm import load_tokenizer  # lazy: transformers

        for model in folders:
            load_tokenizer(Path(model), model)
