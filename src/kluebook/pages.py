"""Book pages generated from the task registry, so that a new task folder shows up in the book
without a page being edited: the task table, the prediction-file formats, and one methods page
per task (its card, then its recipe and smoke settings read from its task.yaml)."""

from pathlib import Path

from kluebook.json_files import write_text_if_changed
from kluebook.paths import GENERATED
from kluebook.recipes import resolve_recipe
from kluebook.tasks import Task, all_tasks
from kluebook.tiny_model import TINY_MODEL

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
        ]
        for task in tasks
    ]
    return _table(["task", "what is predicted", "official metrics", "how"], rows)


def prediction_formats(tasks: list[Task]) -> str:
    """One row per task: a line of its predictions file for `kluebook score`."""
    rows = [
        [f"`{task.name}`", f"`{task.predictions['line']}`", task.predictions["note"]]
        for task in tasks
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
    for model, values in task.recipe.get("models", {}).items():
        changes = ", ".join(f"`{k}` {v}" for k, v in values.items())
        text += f"\nFor `{model}` alone: {changes}.\n"
    return text


def methods_page(task: Task) -> str:
    """The task's card, followed by its recipe, smoke settings and registry facts."""
    card = task.card_path.read_text(encoding="utf-8").strip()
    floor = task.smoke_floor
    files = ", ".join(f"`{path}`" for path in task.files.values())
    return (
        f"(methods-{task.name})=\n{card}\n\n"
        "## Recipe\n\n"
        "The official fine-tuning recipe, from this task's `task.yaml`. The smoke profile's "
        "values are for the tiny randomly initialised stand-in, which needs a higher learning "
        "rate and more epochs than a pretrained checkpoint. The rows from `eval_schedule` on "
        "are the switches, each described on the page of deviations from the official code "
        "({ref}`deviations`).\n\n"
        f"{recipe_table(task)}\n"
        "## Registry facts\n\n"
        f"- Task version: {task.version} (bumped on every change that alters its numbers).\n"
        f"- Files in the official layout: {files}.\n"
        f"- Checkpoint selection: the best dev `{task.selection_metric}`.\n"
        f"- Smoke floor checked by the end-to-end test: `{floor['metric']}` above "
        f"{floor['value']} ({floor['why']}).\n"
        f"- Smoke data: {smoke_data(task)}.\n"
    )


def smoke_data(task: Task) -> str:
    """The generator's sizes for the smoke data, as set in task.yaml (else its defaults)."""
    if not task.smoke_data:
        return "the generator's default sizes"
    return ", ".join(f"`{key}` {value}" for key, value in task.smoke_data.items())


def write_pages(out_dir: Path = GENERATED) -> list[Path]:
    """Write the registry pages of the book; return their paths."""
    tasks = list(all_tasks().values())
    pages = {
        out_dir / "tasks_table.md": tasks_table(tasks),
        out_dir / "prediction_formats.md": prediction_formats(tasks),
    }
    for task in tasks:
        pages[out_dir / "methods" / f"{task.name}.md"] = methods_page(task)
    for path, text in pages.items():
        write_text_if_changed(path, text)
    return list(pages)
