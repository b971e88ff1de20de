"""Book pages generated from the task registry and the run records: one landing page per task
(what it measures, its results and its runs grouped by model), and the table of contents that puts
each task's runs under its landing page; `write_pages` writes them with the registry's own pages
(`registry_pages`)."""

import copy
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import yaml

from kluebook.book import myst, registry_pages
from kluebook.book.errata_page import task_errata
from kluebook.book.klue_table import sections_for, table_html
from kluebook.book.myst import doc_link, list_table
from kluebook.book.prompt_sensitivity import sensitivity_markdown
from kluebook.book.results_page import figure_path
from kluebook.book.side_by_side import side_by_side
from kluebook.common.json_files import write_text_if_changed
from kluebook.common.paths import GENERATED, ROOT, RUNS
from kluebook.recording.records import RunRecord
from kluebook.results.aggregation import (
    published_rows,
    published_scores,
    reproduced_rows,
    run_configuration,
)
from kluebook.results.links import RESULTS_PAGE, STATUS_PAGE, run_page, task_page
from kluebook.results.sensitivity import sweeps
from kluebook.results.uncertainty import resolution_text, scores_text
from kluebook.submissions.board import BoardEntry
from kluebook.tasks import Task, all_tasks, card_path

# How the runs list names the configuration of runs made with their profile's recipe.
PROFILE_RECIPE = "the profile's recipe"


def results_title(task: Task) -> str:
    return f"{task.title} — results and runs"


def card_summary(task: Task) -> str:
    """The opening of the task's card after its title: its first paragraph, and the English one
    after it where the first is the Korean summary (`language-ko`)."""
    text = card_path(task).read_text(encoding="utf-8")
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


def landing_page(
    task: Task,
    records: list[RunRecord],
    rows,
    published,
    root: Path = ROOT,
    submitted=(),
    board: Sequence[BoardEntry] = (),
) -> str:
    """A task's landing page: what it measures, its metrics, its results (the submissions'
    rows, `submitted`, among them), the side-by-side view of its runs and of the submissions
    of `board` (the board's entries), its runs by model."""
    page = task_page(task)
    metrics = "; ".join(f"{m.label} (`{m.key}`)" for m in task.metrics)
    selection = next((m.label for m in task.metrics if m.key == task.selection_metric), None)
    mine = [r for r in rows if any(name == task.name for name, _ in r.cells)]
    theirs = [r for r in published if any(name == task.name for name, _ in r.cells)]
    reference = [
        r
        for r in published_rows(published_scores("original"))
        if any(name == task.name for name, _ in r.cells)
    ]
    submitted = [r for r in submitted if any(name == task.name for name, _ in r.cells)]
    sections = sections_for(mine, theirs, reference, submitted)
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
        "to the items of each seed's run). With JavaScript, pick a block in the Block column's "
        "filter and sort any column within the blocks. Prompted runs, labelled with their "
        "shots, are in blocks of their own, never ranked against the fine-tuned ones (the "
        "methods page says how the task is prompted).\n",
        table_html(sections, [task], page) + "\n",
        f":::{{figure}} /{figure_path(task).relative_to(ROOT).as_posix()}\n"
        f":alt: {task.title}: each configuration's dev scores beside the published test "
        "scores, one panel per metric.\n\n"
        "Dots: one seed's dev score; diamond and bar: their mean ± sd; crosses: published "
        "test scores; smoke runs on axes of their own, the dashed line their floor.\n:::\n",
        "### What its dev set can resolve\n",
        resolution_text(task, records),
        "### Sensitivity to the prompt\n",
        sensitivity_markdown(task, sweeps(task, rows)),
        side_by_side(task, records, page, root, board=board),
        task_errata(task),
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
            where = f"{myst.text(profile)} profile" + ("" if config else f", {PROFILE_RECIPE}")
        else:
            where = (
                "pages whose record is missing or unreadable: their numbers are in no table "
                f"(see the {{doc}}`status page </{STATUS_PAGE}>`)"
            )
        # Each configuration its own heading: a model's prompted runs differ by their shots
        # and template, which the heading says.
        heading = f"{model} ({config})" if config else model
        text.append(f"### {myst.text(heading)}\n\n*{where}*\n")
        for docname, record in items:
            if record is None:
                text.append(f"- {doc_link(docname.rsplit('/', 1)[-1], docname)}")
                continue
            seed = f"seed {record.seed}"
            if record.outcome is None:
                error = record.error or "no error recorded"
                text.append(f"- {seed}: **{myst.text(record.status)}**, {myst.text(error)}")
                continue
            scores = scores_text(task, record)  # each with its 95% bootstrap interval
            if scores and record.outcome.prompted is not None:
                scores += f"; {record.outcome.prompted.unparsable} unparsable"
            wall = f" · {record.wall_time_s:,.0f} s" if record.wall_time_s else ""
            text.append(f"- {doc_link(seed, docname)}" + (f": {scores}{wall}" if scores else ""))
        text.append("")
    return "\n".join(text) + "\n"


TASKS_GLOB = f"{GENERATED.relative_to(ROOT).as_posix()}/tasks/*"
METHODS_GLOB = f"{GENERATED.relative_to(ROOT).as_posix()}/methods/*"


def table_of_contents(
    tasks: list[Task], records: list[RunRecord], root: Path = ROOT, submitted: list = ()
) -> dict:
    """_toc.yml with its task and methods globs spelled out in the registry's order, each
    task's runs as sections of its landing page, and each submission's page (`submitted`: its
    rows, `kluebook.book.submitted`) as a section of the results page."""
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
            if entry.get("file") == RESULTS_PAGE and submitted:
                entry["sections"] = [
                    {"file": r.page, "title": myst.one_line(r.label)} for r in submitted
                ]
            out.append(entry)
        return out

    for part in toc.get("parts", []):
        part["chapters"] = expand(part["chapters"])
    return toc


def write_pages(
    out_dir: Path,
    records: list[RunRecord],
    submitted: list = (),
    board: Sequence[BoardEntry] = (),
) -> list[Path]:
    """Write the registry pages of the book, the task landing pages and the table of contents
    from the run records (and the submitted rows, whose pages it lists, and the board's entries
    they were made from, which the side-by-side views offer); return their paths."""
    tasks = list(all_tasks().values())
    rows = reproduced_rows(records)
    published = published_rows(published_scores())
    pages = {
        out_dir / "tasks_table.md": registry_pages.tasks_table(tasks),
        out_dir / "prediction_formats.md": registry_pages.prediction_formats(tasks),
    }
    for task in tasks:
        pages[out_dir / "methods" / f"{task.name}.md"] = registry_pages.methods_page(task)
        pages[out_dir / "tasks" / f"{task.name}.md"] = landing_page(
            task, records, rows, published, ROOT, submitted, board
        )
    if (ROOT / "_toc.yml").is_file():  # a book root, not only a folder of records
        header = "# Generated by `kluebook report` from _toc.yml: do not edit.\n"
        toc = table_of_contents(tasks, records, ROOT, submitted)
        toc = yaml.safe_dump(toc, sort_keys=False, allow_unicode=True)
        pages[out_dir / "_toc.yml"] = header + toc
    for path, text in pages.items():
        write_text_if_changed(path, text)
    return list(pages)
