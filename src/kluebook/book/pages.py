"""Book pages generated from the task registry, so that a new task folder shows up in the book
without a page being edited: the task table, the prediction-file formats, one methods page per
task (its card, then its recipe and smoke settings read from its task.yaml), one landing page
per task (what it measures, its results and its runs grouped by model), and the table of
contents that puts each task's runs under its landing page."""

import copy
import inspect
import re
from collections import defaultdict
from pathlib import Path

import yaml

from kluebook.book.klue_table import metrics_anchor, sections_for, table_html
from kluebook.book.myst import list_table
from kluebook.book.results_page import figure_path
from kluebook.common.json_files import write_text_if_changed
from kluebook.common.paths import GENERATED, ROOT, RUNS
from kluebook.prompting.registry import task_prompting
from kluebook.recording.records import RunRecord
from kluebook.results.aggregation import (
    published_rows,
    published_scores,
    reproduced_rows,
    run_configuration,
)
from kluebook.results.links import RESULTS_PAGE, STATUS_PAGE, run_page, task_page
from kluebook.results.uncertainty import resolution_text, scores_text
from kluebook.tasks import Task, all_tasks
from kluebook.tasks.prompt_items import TEMPLATE_FILE
from kluebook.training.recipes import resolve_recipe
from kluebook.training.tiny_model import TINY_MODEL

# How the runs list names the configuration of runs made with their profile's recipe.
PROFILE_RECIPE = "the profile's recipe"
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
    card = page_heading(task.card_path.read_text(encoding="utf-8").strip(), methods_title(task))
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
        f"- Smoke floor checked by the end-to-end test: `{floor['metric']}` above "
        f"{floor['value']} ({floor['why']}).\n"
        f"- Smoke data: {smoke_data(task)}.\n"
    )


def prompted_section(task: Task) -> str:
    """How the task is evaluated prompted, read from its template (`prompt.yaml`) and its
    prompting module's docstrings; a sentence saying it cannot be where it has no template."""
    if not (task.folder / TEMPLATE_FILE).is_file():
        return (
            "## Prompted evaluation\n\n"
            f"This task has no prompt template (`{TEMPLATE_FILE}` in its folder), so it is "
            "evaluated fine-tuned only ({ref}`Prompting KLUE <prompting>` says what a template "
            "holds).\n\n"
        )
    template, prompting = task_prompting(task.name)
    if template.mode == "rank":
        mode = (
            "**Answer mode: ranking.** The model writes nothing: the log-likelihood of every "
            "answer of the task's closed set after the prompt is computed, and the most probable "
            "answer is the prediction, so a ranked answer is always readable. A generated answer "
            "(for a server that gives no log-probabilities, `--set mode=generate`) must be one "
            "of the answers the format lists, written exactly; any other is unparsable."
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
        "the official metrics above ({ref}`Prompting KLUE <prompting>`). The template is the "
        f"task's `{TEMPLATE_FILE}`, its answers are read by its `prompting.py`; "
        f"`kluebook run --method prompted --tasks {task.name}` runs it offline with the "
        "tiny stand-in.\n\n"
        f"{mode}\n\n"
        "The instruction and the answer format, as the model reads them (each answer opens "
        f"with `{template.answer_prefix}`):\n\n"
        ":::{container} language-ko\n"
        f"{template.instruction.strip()}\n\n{template.answer_format.strip()}\n"
        ":::\n\n"
        + "".join(f"{paragraph.strip()}\n\n" for paragraph in reading)
        + "An unparsable answer is counted (the run's record and page say how many) and scored "
        "as the task's fallback, which is wrong on that item by construction: "
        f"{fallback[:1].lower()}{fallback[1:]}\n\n"
    )


def methods_title(task: Task) -> str:
    """The methods page's title, told apart from the task's results page in the sidebar and
    in search."""
    return f"{task.title} — method"


def results_title(task: Task) -> str:
    return f"{task.title} — results and runs"


def page_heading(text: str, title: str) -> str:
    """`text` (Markdown opening with a level-1 heading) with `title` as that heading."""
    return re.sub(r"\A# [^\n]*", lambda _: f"# {title}", text, count=1)


def smoke_data(task: Task) -> str:
    """The generator's sizes for the smoke data, as set in task.yaml (else its defaults)."""
    if not task.smoke_data:
        return "the generator's default sizes"
    return ", ".join(f"`{key}` {value}" for key, value in task.smoke_data.items())


def card_summary(task: Task) -> str:
    """The opening of the task's card after its title: its first paragraph, and the English one
    after it where the first is the Korean summary (`language-ko`)."""
    text = task.card_path.read_text(encoding="utf-8")
    body = re.sub(r"^#[^\n]*\n", "", text.strip(), count=1).strip()
    paragraphs = body.split("\n\n")
    count = 2 if paragraphs[0].startswith(":::{container} language-ko") else 1
    return "\n\n".join(p.strip() for p in paragraphs[:count])


def run_title(record: RunRecord | None, docname: str) -> str:
    """How a run is named in the sidebar and in lists: model, profile, configuration, seed."""
    if record is None:
        return docname.rsplit("/", 1)[-1]
    config = run_configuration(record)
    return f"{record.model}, {record.profile}{f', {config}' if config else ''}, seed {record.seed}"


RunPage = tuple[str, RunRecord | None]  # a page's docname and its record (None: unreadable)


def run_pages(task: Task, records: list[RunRecord], root: Path = ROOT) -> list[RunPage]:
    """The executed notebooks of a task in the book (docname, record or None), ordered by
    profile, model, configuration and seed (pages without a record first)."""
    folder = root / RUNS.relative_to(ROOT) / task.name
    by_page = {
        run_page(r, root): r for r in records if r.task == task.name and r.outcome is not None
    }
    pages = []
    for path in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        docname = path.relative_to(root).with_suffix("").as_posix()
        pages.append((docname, by_page.get(docname)))

    def order(item: RunPage) -> tuple:
        docname, r = item
        if r is None:
            return (False, "", "", "", 0, docname)
        return (r.profile == "smoke", r.profile, r.model, r.config, r.seed, docname)

    return sorted(pages, key=order)


def landing_page(task: Task, records: list[RunRecord], rows, published, root: Path = ROOT) -> str:
    """A task's landing page: what it measures, its metrics, its results, its runs by model."""
    page = task_page(task)
    metrics = "; ".join(f"{m.label} (`{m.key}`)" for m in task.metrics)
    selection = next((m.label for m in task.metrics if m.key == task.selection_metric), None)
    mine = [r for r in rows if any(k[0] == task.name for k in r.cells)]
    theirs = [r for r in published if any(k[0] == task.name for k in r.cells)]
    reference = [
        r
        for r in published_rows(published_scores("original"))
        if any(k[0] == task.name for k in r.cells)
    ]
    sections = sections_for(mine, theirs, reference)
    methods = f"methods-{task.name}"
    text = [
        f"(task-{task.name})=\n# {results_title(task)}\n",
        card_summary(task) + "\n",
        list_table(
            [],
            [
                ["What is predicted", task.predicts],
                ["Official metrics", metrics],
                ["Checkpoint selection", f"the best dev {selection or task.selection_metric}"],
                ["How it is trained and scored", f"its {{ref}}`methods page <{methods}>`"],
                ["All tasks side by side", f"{{doc}}`the KLUE table </{RESULTS_PAGE}>`"],
            ],
            [35, 65],
        ),
        "## Results\n",
        "Published test-set scores, the KLUE README's first table (dev) as the reference, and "
        "this book's dev-set scores (mean, then ± sd and the number of seeds n; s1, s2, … link "
        "to each seed's run). Prompted runs, labelled with their shots, are in blocks of their "
        "own, never ranked against the fine-tuned ones (the methods page says how the task is "
        "prompted).\n",
        table_html(sections, [task], page) + "\n",
        f":::{{figure}} /{figure_path(task).relative_to(ROOT).as_posix()}\n"
        f":alt: {task.title}: each configuration's dev scores beside the published test "
        "scores, one panel per metric.\n\n"
        "Dots: one seed's dev score; diamond and bar: their mean ± sd; crosses: published "
        "test scores; smoke runs on axes of their own, the dashed line their floor.\n:::\n",
        "### What its dev set can resolve\n",
        resolution_text(task, records),
        "## Runs\n",
    ]
    pages = run_pages(task, records, root)
    unfinished = [r for r in records if r.task == task.name and r.outcome is None]
    if not pages and not unfinished:
        text.append(
            f"No run of this task yet: `kluebook run --tasks {task.name}` executes its notebook.\n"
        )
    groups: dict[tuple, list[tuple[str | None, RunRecord | None]]] = defaultdict(list)
    for docname, record in [*pages, *((None, r) for r in unfinished)]:
        key = (record.model, record.profile, run_configuration(record)) if record else None
        groups[key or ("unrecorded", "", "")].append((docname, record))
    for (model, profile, config), items in groups.items():
        if profile:
            where = f"{profile} profile, {config or PROFILE_RECIPE}"
        else:
            where = (
                "pages whose record is missing or unreadable: their numbers are in no table "
                f"(see the {{doc}}`status page </{STATUS_PAGE}>`)"
            )
        text.append(f"### {model}\n\n*{where}*\n")
        for docname, record in items:
            if record is None:
                text.append(f"- {{doc}}`{docname.rsplit('/', 1)[-1]} </{docname}>`")
                continue
            seed = f"seed {record.seed}"
            if record.outcome is None:
                error = record.error or "no error recorded"
                text.append(f"- {seed}: **{record.status}**, {error}")
                continue
            scores = scores_text(task, record)  # each with its 95% bootstrap interval
            if scores and record.outcome.prompted is not None:
                scores += f"; {record.outcome.prompted.unparsable} unparsable"
            wall = f" · {record.wall_time_s:,.0f} s" if record.wall_time_s else ""
            text.append(f"- {{doc}}`{seed} </{docname}>`" + (f": {scores}{wall}" if scores else ""))
        text.append("")
    return "\n".join(text) + "\n"


TASKS_GLOB = f"{GENERATED.relative_to(ROOT).as_posix()}/tasks/*"
METHODS_GLOB = f"{GENERATED.relative_to(ROOT).as_posix()}/methods/*"


def table_of_contents(tasks: list[Task], records: list[RunRecord], root: Path = ROOT) -> dict:
    """_toc.yml with its task and methods globs spelled out in the registry's order, and each
    task's runs as sections of its landing page."""
    with open(root / "_toc.yml", encoding="utf-8") as handle:
        toc = yaml.safe_load(handle)

    def expand(entries: list[dict]) -> list[dict]:
        out = []
        for entry in entries:
            entry = copy.deepcopy(entry)
            if entry.get("glob") == TASKS_GLOB:
                for task in tasks:
                    item = {"file": task_page(task)}
                    runs = [
                        {"file": docname, "title": run_title(record, docname)}
                        for docname, record in run_pages(task, records, root)
                    ]
                    if runs:
                        item["sections"] = runs
                    out.append(item)
                continue
            if entry.get("glob") == METHODS_GLOB:
                out += [{"file": f"{METHODS_GLOB[:-2]}/{task.name}"} for task in tasks]
                continue
            for key in ("chapters", "sections"):
                if key in entry:
                    entry[key] = expand(entry[key])
            out.append(entry)
        return out

    for part in toc.get("parts", []):
        part["chapters"] = expand(part["chapters"])
    return toc


def write_pages(out_dir: Path, records: list[RunRecord]) -> list[Path]:
    """Write the registry pages of the book, the task landing pages and the table of contents
    from the run records; return their paths."""
    tasks = list(all_tasks().values())
    rows = reproduced_rows(records)
    published = published_rows(published_scores())
    pages = {
        out_dir / "tasks_table.md": tasks_table(tasks),
        out_dir / "prediction_formats.md": prediction_formats(tasks),
    }
    for task in tasks:
        pages[out_dir / "methods" / f"{task.name}.md"] = methods_page(task)
        pages[out_dir / "tasks" / f"{task.name}.md"] = landing_page(task, records, rows, published)
    if (ROOT / "_toc.yml").is_file():  # a book root, not only a folder of records
        header = "# Generated by `kluebook report` from _toc.yml: do not edit.\n"
        toc = yaml.safe_dump(table_of_contents(tasks, records), sort_keys=False, allow_unicode=True)
        pages[out_dir / "_toc.yml"] = header + toc
    for path, text in pages.items():
        write_text_if_changed(path, text)
    return list(pages)
