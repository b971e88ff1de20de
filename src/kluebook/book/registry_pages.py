"""Book pages read off the task registry alone, so that a new task folder shows up in the book
without a page being edited: the task table, the prediction-file formats and one methods page per
task (its card, then its recipe and smoke settings read from its task.yaml, and how it is
prompted)."""

import inspect
import re

from kluebook.book.klue_table import metrics_anchor
from kluebook.book.myst import code
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.results.calibration import CORRECTIONS
from kluebook.tasks import Task, card_path
from kluebook.tasks.prompt_items import DEFAULT_TEMPLATE, TEMPLATES_FOLDER, template_names
from kluebook.training.recipes import resolve_recipe
from kluebook.training.tiny_model import TINY_MODEL

# A checkpoint of each recipe size, to show the base and the large recipe side by side.
RECIPE_COLUMNS = {"base": "klue/roberta-base", "large": "klue/roberta-large"}


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def tasks_table(tasks: list[Task]) -> str:
    """One row per task: what is predicted, its official metrics and its methods page."""
    rows = [
        [
            task.title,
            task.predicts,
            "; ".join(m.label for m in task.metrics),
            f"{{ref}}`methods <methods-{task.name}>`",
            f"{{ref}}`results and runs <task-{task.name}>`",
        ]
        for task in tasks
    ]
    return _table(["task", "what is predicted", "official metrics", "how", "runs"], rows)


def prediction_formats(tasks: list[Task]) -> str:
    """One row per task: a line of its predictions file for `kluebook score`."""
    rows = [
        [f"`{task.name}`", f"`{task.predictions.line}`", task.predictions.note] for task in tasks
    ]
    return _table(["task", "one line of the predictions file", "note"], rows)


def recipe_table(task: Task) -> str:
    """The official recipe for base and large checkpoints, and what the smoke profile uses; the
    switches (book/deviations.md) after the hyper-parameters."""
    recipes = {
        size: resolve_recipe(task, model, "paper", {}).as_dict()
        for size, model in RECIPE_COLUMNS.items()
    }
    smoke = resolve_recipe(task, TINY_MODEL, "smoke", {}).as_dict()
    rows = [
        [f"`{key}`", *(str(r[key]) for r in recipes.values()), str(smoke[key])]
        for key in recipes["base"]
    ]
    text = _table(["parameter", "base checkpoints", "klue/roberta-large", "smoke profile"], rows)
    for model, values in task.recipe.models.items():
        changes = ", ".join(f"`{k}` {v}" for k, v in values.items())
        text += f"\nFor `{model}` alone: {changes}.\n"
    return text


def methods_page(task: Task) -> str:
    """The task's card, followed by its recipe, smoke settings and registry facts."""
    card = page_heading(card_path(task).read_text(encoding="utf-8").strip(), methods_title(task))
    # The target of the results table's metric headers (kluebook.book.klue_table.metrics_anchor).
    card = card.replace("\n## Metrics\n", f"\n({metrics_anchor(task)})=\n## Metrics\n", 1)
    floor = task.smoke_floor
    files = ", ".join(f"`{path}`" for path in task.files.values())
    return (
        f"(methods-{task.name})=\n{card}\n\n"
        f"Results and executed runs of this task: {{ref}}`task-{task.name}`.\n\n"
        "## Recipe\n\n"
        "The official fine-tuning recipe, from this task's `task.yaml`. The smoke profile's "
        "values are for the tiny randomly initialised stand-in, which needs a higher learning "
        "rate and more epochs than a pretrained checkpoint. The rows from `eval_schedule` on "
        "are the switches, each described on the page of deviations from the official code "
        "({ref}`deviations`).\n\n"
        f"{recipe_table(task)}\n"
        f"{prompted_section(task)}"
        "## Registry facts\n\n"
        f"- Task version: {task.version} (bumped on every change that alters its numbers).\n"
        f"- Files in the official layout: {files}.\n"
        f"- Checkpoint selection: the best dev `{task.selection_metric}`.\n"
        f"- Smoke floor checked by the end-to-end test: `{floor.metric}` above "
        f"{floor.value} ({floor.why}).\n"
        f"- Smoke data: {smoke_data(task)}.\n"
    )


def prompted_section(task: Task) -> str:
    """How the task is evaluated prompted, read from its templates (`prompts/`) and its
    prompting module's docstrings; a sentence saying it cannot be where it has no template."""
    names = template_names(task.folder)
    if not names:
        return (
            "## Prompted evaluation\n\n"
            f"This task has no prompt template (`{TEMPLATES_FOLDER}/` in its folder), so it is "
            "evaluated fine-tuned only ({ref}`Prompting KLUE <prompting>` says what a template "
            "holds).\n\n"
        )
    template = task_template(task.name)
    prompting = task_prompting(task.name)
    if template.mode == "rank":
        mode = (
            "**Answer mode: ranking.** The model writes nothing: the log-likelihood of every "
            "answer of the task's closed set after the prompt is computed, and the most probable "
            "answer is the prediction, so a ranked answer is always readable. A generated answer "
            "(for a server that gives no log-probabilities, `--set mode=generate`) must be one "
            "of the answers the format lists, written exactly; any other is unparsable."
        )
        if template.corrections:
            named = " and ".join(CORRECTIONS[name] for name in template.corrections)
            mode += (
                f" The `{DEFAULT_TEMPLATE}` template also scores {named}, as corrections "
                "beside its ranking, which stays the run's "
                "({ref}`calibration <prompting-calibration>`)."
            )
    else:
        mode = (
            f"**Answer mode: generation.** The model writes greedily, up to "
            f"{template.max_new_tokens} new tokens, and the task's parser reads the answer, "
            "strictly: an answer it cannot read is unparsable."
        )
    # The module's reading rules, after its one-line summary (a module may have no docstring).
    reading = (inspect.getdoc(prompting) or "").split("\n\n")[1:]
    fallback = " ".join((inspect.getdoc(prompting.fallback_prediction) or "").split())
    return (
        f"(methods-{task.name}-prompted)=\n"
        "## Prompted evaluation\n\n"
        "Without any training, a language model can answer this task's dev items from a prompt, "
        "zero- or few-shot; its answers become the same predictions file and are scored by "
        "the official metrics above ({ref}`Prompting KLUE <prompting>`). The templates are "
        f"the files of the task's `{TEMPLATES_FOLDER}/` folder, its answers are read by its "
        f"`prompting.py`; `kluebook run --method prompted --tasks {task.name}` runs the "
        f"`{DEFAULT_TEMPLATE}` one offline with the tiny stand-in, `--set template=NAME` "
        "another, and `--matrix prompt-sensitivity` all of them.\n\n"
        f"{mode}\n\n"
        + template_table(task.name, names)
        + f"The instruction and the answer format of the `{DEFAULT_TEMPLATE}` template, as the "
        f"model reads them (each answer opens with `{template.answer_prefix}`):\n\n"
        ":::{container} language-ko\n"
        f"{template.instruction.strip()}\n\n{template.answer_format.strip()}\n"
        ":::\n\n"
        + "".join(f"{paragraph.strip()}\n\n" for paragraph in reading)
        + "An unparsable answer is counted (the run's record and page say how many) and scored "
        "as the task's fallback, which is wrong on that item by construction: "
        f"{fallback[:1].lower()}{fallback[1:]}\n\n"
    )


def template_table(task_name: str, names: list[str]) -> str:
    """The task's templates, one row each: its instruction, answer prefix and answer words."""
    rows = []
    for name in names:
        template = task_template(task_name, name)
        instruction = " ".join(template.instruction.split())
        words = ", ".join(f"{a} → {w}" for a, w in template.answer_words.items()) or "the task's"
        named = code(name).replace("|", "\\|")  # a pipe in a table's cell, even in code
        rows.append(f"| {named} | {instruction} | `{template.answer_prefix}` | {words} |")
    return (
        f"The task's {len(names)} templates, each recorded by its name in the runs made with "
        "it:\n\n"
        "| Template | Instruction | Answer prefix | Answer words |\n|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n\n"
    )


def methods_title(task: Task) -> str:
    """The methods page's title, told apart from the task's results page in the sidebar and
    in search."""
    return f"{task.title} — method"


def page_heading(text: str, title: str) -> str:
    """`text` (Markdown opening with a level-1 heading) with `title` as that heading."""
    return re.sub(r"\A# [^\n]*", lambda _: f"# {title}", text, count=1)


def smoke_data(task: Task) -> str:
    """The generator's sizes for the smoke data, as set in task.yaml (else its defaults)."""
    if not task.smoke_data:
        return "the generator's default sizes"
    return ", ".join(f"`{key}` {value}" for key, value in task.smoke_data.items())
