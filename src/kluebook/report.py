"""The results, generated from the run records before the book is built.

One table as KLUE publishes it: a row per model, the tasks and their metrics as columns in the
registry's order. Published rows come from configs/published_scores.csv (the KLUE README's
test-set scores, with their source); reproduced rows from results/ (dev-set mean ± sd over
seeds, each cell linking to the runs behind it); smoke rows, a pipeline check, are a section of
their own. Beside it: the gap between reproduced and published numbers, a figure per task, the
downloads (CSV, JSON, Hugging Face model-index snippets) and the status page.
"""

import html
import json
import math
import posixpath
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pandas as pd
import yaml

from kluebook.checkpoints import model_entry, registered_models
from kluebook.json_files import write_text_if_changed
from kluebook.myst import list_table
from kluebook.paths import CONFIGS, GENERATED, RESULTS, ROOT
from kluebook.records import model_slug, read_record
from kluebook.tasks import Metric, Task, all_tasks

PROFILE_NOTES = {
    "smoke": "pipeline check on generated data with a tiny untrained model — not a reproduction",
    "paper": "official recipe on the official data",
}
SOURCE_SPLITS = {
    "generated": "dev (generated)",
    "official": "dev (KLUE v1.1)",
    "hub": "validation (klue/klue, v1)",
}
# The page the results table is on, and where the generated task pages are (docnames).
RESULTS_PAGE = "book/results"
TASK_PAGES = "book/_generated/tasks"


def load_records(results: Path = RESULTS) -> list[dict]:
    """Every readable record under results/."""
    found = (read_record(path) for path in sorted(results.rglob("*.json")))
    return [r for r in found if r is not None and "task" in r]


def published_scores(table: str = "current") -> pd.DataFrame:
    """The published numbers of one table, long: model, task, metric, value, split, source."""
    frame = pd.read_csv(CONFIGS / "published_scores.csv")
    return frame[frame["table"] == table].reset_index(drop=True)


@cache
def published_sizes() -> dict[str, str]:
    """The size (base, large, …) of each model of the published tables, from models.yaml."""
    with open(CONFIGS / "models.yaml", encoding="utf-8") as handle:
        registry = yaml.safe_load(handle)
    sizes = {e["published"]: e["size"] for e in registered_models().values() if "published" in e}
    sizes.update({name: e["size"] for name, e in (registry.get("published_only") or {}).items()})
    return sizes


def short_name(task: Task) -> str:
    """The task's name as the KLUE tables print it: the acronym in parentheses in its title."""
    found = re.search(r"\(([^)]+)\)\s*$", task.title)
    return found.group(1) if found else task.name.upper()


def task_page(task: Task) -> str:
    return f"{TASK_PAGES}/{task.name}"


def run_page(record: dict, root: Path = ROOT) -> str | None:
    """The docname of a run's executed notebook, or None when the book has no page for it."""
    notebook = record.get("notebook")
    if not notebook or not (root / notebook).is_file():
        return None
    return notebook.removesuffix(".ipynb")


def href(from_page: str, to_page: str, anchor: str = "") -> str:
    """A link from one page of the built site to another (both docnames), relative."""
    target = posixpath.relpath(f"{to_page}.html", posixpath.dirname(from_page) or ".")
    return html.escape(target + (f"#{anchor}" if anchor else ""), quote=True)


@dataclass
class Cell:
    """One number of a table: a published value, or the seeds of a reproduced configuration."""

    values: list[float]
    runs: list[tuple[int, str | None]] = field(default_factory=list)  # (seed, run page)

    @property
    def mean(self) -> float:
        return statistics.mean(self.values)

    @property
    def sd(self) -> float | None:
        return statistics.stdev(self.values) if len(self.values) > 1 else None


@dataclass
class Row:
    """One row of the KLUE table: a published model, or a reproduced configuration."""

    label: str
    kind: str  # "published" or "reproduced"
    size: str
    split: str
    cells: dict[tuple[str, str], Cell]
    model: str = ""
    profile: str = ""
    data_source: str = ""
    config: str = "default"
    source: str = ""

    @property
    def published_name(self) -> str | None:
        return model_entry(self.model).get("published") if self.kind == "reproduced" else None


def _model_order(model: str) -> tuple:
    known = list(registered_models())
    return (known.index(model), "") if model in known else (len(known), model)


def reproduced_rows(records: list[dict], root: Path = ROOT) -> list[Row]:
    """One row per (profile, model, data source, configuration), its seeds pooled per metric."""
    groups: dict[tuple, dict] = defaultdict(lambda: defaultdict(lambda: Cell([])))
    for record in records:
        if record.get("status") != "succeeded":
            continue
        key = (
            record["profile"],
            record["model"],
            record["data_source"],
            record.get("config", "default"),
        )
        for metric, value in (record.get("metrics") or {}).items():
            if value is None or (isinstance(value, float) and math.isnan(value)):
                continue
            cell = groups[key][(record["task"], metric)]
            cell.values.append(float(value))
            cell.runs.append((record["seed"], run_page(record, root)))
    rows = []
    for (profile, model, source, config), cells in groups.items():
        for cell in cells.values():
            order = sorted(range(len(cell.runs)), key=lambda i: cell.runs[i][0])
            cell.values = [cell.values[i] for i in order]
            cell.runs = [cell.runs[i] for i in order]
        rows.append(
            Row(
                label=model,
                kind="reproduced",
                size=model_entry(model).get("size", "base"),
                split=SOURCE_SPLITS.get(source, source),
                cells=dict(cells),
                model=model,
                profile=profile,
                data_source=source,
                config=config,
            )
        )
    return sorted(
        rows, key=lambda r: (r.profile == "smoke", r.profile, _model_order(r.model), r.config)
    )


def published_rows(published: pd.DataFrame) -> list[Row]:
    """One row per model of a published table, in the table's order."""
    rows = []
    for model, part in published.groupby("model", sort=False):
        cells = {(r.task, r.metric): Cell([float(r.value)]) for r in part.itertuples()}
        rows.append(
            Row(
                label=model,
                kind="published",
                size=published_sizes().get(model, "unknown"),
                split=str(part["split"].iloc[0]),
                cells=cells,
                source=str(part["source"].iloc[0]),
            )
        )
    return rows


def columns(tasks: list[Task]) -> list[tuple[Task, Metric]]:
    """The table's number columns: each task's metrics in its task.yaml's order."""
    return [(task, metric) for task in tasks for metric in task.metrics]


def emphasis(rows: list[Row], cols: list[tuple[Task, Metric]]) -> dict[tuple[int, str], str]:
    """As KLUE marks its table: per column, the best value in bold and the best among base-size
    models in italics (ties share the mark), compared on the two decimals shown."""
    marks: dict[tuple[int, str], str] = {}
    for task, metric in cols:
        key = (task.name, metric.key)
        values = {i: round(r.cells[key].mean, 2) for i, r in enumerate(rows) if key in r.cells}
        if len(values) < 2:
            continue
        best = max(values.values())
        base = [v for i, v in values.items() if rows[i].size == "base"]
        for i, value in values.items():
            mark = ("b" if value == best else "") + (
                "i" if base and rows[i].size == "base" and value == max(base) else ""
            )
            if mark:
                marks[(i, f"{task.name}/{metric.key}")] = mark
    return marks


def _emphasise(text: str, mark: str) -> str:
    if "i" in mark:
        text = f"<em>{text}</em>"
    if "b" in mark:
        text = f"<strong>{text}</strong>"
    return text


def _cell_html(row: Row, cell: Cell | None, mark: str, page: str) -> str:
    if cell is None:
        return '<td class="num missing">—</td>'
    if row.kind == "published":
        return f'<td class="num">{_emphasise(f"{cell.mean:.2f}", mark)}</td>'
    n = len(cell.values)
    spread = f"± {cell.sd:.2f} · " if cell.sd is not None else ""
    links = " ".join(
        f'<a href="{href(page, run)}" title="seed {seed}: {value:.2f}">s{seed}</a>'
        if run
        else f"s{seed}"
        for (seed, run), value in zip(cell.runs, cell.values, strict=True)
    )
    return (
        f'<td class="num">{_emphasise(f"{cell.mean:.2f}", mark)}'
        f'<span class="sd" title="sample sd over {n} seed{"s" if n > 1 else ""}">'
        f"{spread}n={n}</span>"
        f'<span class="runs">{links}</span></td>'
    )


def _row_head(row: Row, notes: dict[str, str]) -> str:
    """The row's first cell: the model, then its size and split (and configuration) in small."""
    if row.kind == "published":
        note = notes.setdefault(row.source, "abcdefghijklmnopqrstuvwxyz"[len(notes)])
        split = f'{html.escape(row.split)}<sup><a href="#klue-note-{note}">{note}</a></sup>'
        label = html.escape(row.label)
    else:
        split = html.escape(row.split)
        label = f"<code>{html.escape(row.label)}</code>"
    detail = f'<span class="config">{html.escape(row.size)} · {split}</span>'
    if row.kind == "reproduced" and row.config != "default":
        detail += f'<span class="config">{html.escape(row.config.replace(",", ", "))}</span>'
    return f'<th class="model" scope="row">{label}{detail}</th>'


@dataclass
class Section:
    """A block of rows of the table, with a heading row; marks are compared within it."""

    title: str
    rows: list[Row]
    mark_best: bool = True
    empty: str = ""


def table_html(sections: list[Section], tasks: list[Task], page: str) -> str:
    """The KLUE-style table as HTML (no blank line, so Markdown keeps it one block)."""
    cols = columns(tasks)
    width = 1 + len(cols)
    head = [
        '<tr><th rowspan="2" class="model" scope="col">Model<span class="config">size · split'
        "</span></th>"
        + "".join(
            f'<th colspan="{len(t.metrics)}" class="task" scope="colgroup">'
            f'<a href="{href(page, task_page(t))}" title="{html.escape(t.title)}">'
            f"{html.escape(short_name(t))}</a></th>"
            for t in tasks
        )
        + "</tr>",
        "<tr>"
        + "".join(f'<th class="metric" scope="col">{html.escape(m.label)}</th>' for _, m in cols)
        + "</tr>",
    ]
    notes: dict[str, str] = {}
    body = []
    for section in sections:
        kind = re.sub(r"[^a-z]+", "-", section.title.lower().split(":")[0]).strip("-")
        body.append(f'<tbody class="{kind}">')
        body.append(
            f'<tr class="section"><th colspan="{width}" scope="rowgroup">'
            f'<span class="section-title">{html.escape(section.title)}</span></th></tr>'
        )
        if not section.rows and section.empty:
            body.append(
                f'<tr><td colspan="{width}" class="empty">'
                f'<span class="section-title">{section.empty}</span></td></tr>'
            )
        marks = emphasis(section.rows, cols) if section.mark_best else {}
        for i, row in enumerate(section.rows):
            cells = "".join(
                _cell_html(
                    row,
                    row.cells.get((t.name, m.key)),
                    marks.get((i, f"{t.name}/{m.key}"), ""),
                    page,
                )
                for t, m in cols
            )
            body.append(f"<tr>{_row_head(row, notes)}{cells}</tr>")
        body.append("</tbody>")
    footnotes = "".join(
        f'<p class="klue-note" id="klue-note-{mark}"><sup>{mark}</sup> Test split: the private '
        f"KLUE test set, as published in {html.escape(source)}.</p>"
        for source, mark in notes.items()
    )
    return (
        '<div class="klue-table-wrap"><table class="klue-table">'
        f"<thead>{''.join(head)}</thead>{''.join(body)}</table></div>{footnotes}"
    )


def gap_html(rows: list[Row], published: list[Row], tasks: list[Task], page: str) -> str:
    """Reproduced minus published, per released checkpoint and metric (dev minus test)."""
    by_name = {r.label: r for r in published}
    pairs = [(r, by_name[r.published_name]) for r in rows if r.published_name in by_name]
    if not pairs:
        return (
            "No released KLUE checkpoint has been reproduced yet: this view appears after "
            "`kluebook run --profile paper`.\n"
        )
    cols = columns(tasks)
    head = (
        '<tr><th class="model" scope="col">Reproduced</th><th scope="col">Published</th>'
        + "".join(
            f'<th class="metric" scope="col">{html.escape(short_name(t))} '
            f"{html.escape(m.label)}</th>"
            for t, m in cols
        )
        + "</tr>"
    )
    body = []
    for row, theirs in pairs:
        cells = []
        for t, m in cols:
            mine, them = row.cells.get((t.name, m.key)), theirs.cells.get((t.name, m.key))
            if mine is None or them is None:
                cells.append('<td class="num missing">—</td>')
                continue
            gap = mine.mean - them.mean
            cells.append(
                f'<td class="num" title="dev {mine.mean:.2f} − test {them.mean:.2f}">'
                f"{gap:+.2f}</td>"
            )
        label = f"<code>{html.escape(row.label)}</code>"
        if row.config != "default":
            label += f'<span class="config">{html.escape(row.config)}</span>'
        body.append(
            f'<tr><th class="model" scope="row">{label} <span class="config">'
            f"{html.escape(row.profile)}, {html.escape(row.split)}</span></th>"
            f"<td>{html.escape(theirs.label)}</td>{''.join(cells)}</tr>"
        )
    return (
        '<div class="klue-table-wrap"><table class="klue-table gap">'
        f"<thead>{head}</thead><tbody>{''.join(body)}</tbody></table></div>\n"
    )


def sections_for(rows: list[Row], published: list[Row]) -> list[Section]:
    """Published rows first (as in the KLUE README), then each reproduced profile and data
    source, then the smoke rows apart."""
    sections = [
        Section("Published: KLUE README, test split (KLUE's own marks recomputed)", published)
    ]
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        groups[(row.profile, row.split)].append(row)
    real = [k for k in groups if k[0] != "smoke"]
    for profile, split in real:
        sections.append(Section(f"Reproduced: {profile} profile, {split}", groups[profile, split]))
    if not real:
        sections.append(
            Section(
                "Reproduced: paper profile, dev split",
                [],
                empty="No paper-profile run yet: <code>kluebook run --profile paper</code> "
                "adds its rows here.",
            )
        )
    for profile, split in [k for k in groups if k[0] == "smoke"]:
        sections.append(
            Section(
                f"Pipeline check: smoke profile, {split}: generated data and a tiny untrained "
                "model, not a reproduction",
                groups[profile, split],
                mark_best=False,
            )
        )
    return sections


def render(records: list[dict], root: Path = ROOT) -> str:
    """The generated part of the results page (MyST Markdown with HTML tables)."""
    tasks = list(all_tasks().values())
    rows = reproduced_rows(records, root)
    published = published_rows(published_scores())
    parts = [
        "## The KLUE table\n\n"
        "One row per model, the eight tasks and their official metrics as columns, as in the "
        "KLUE README. Published numbers are **test-set** scores. Reproduced numbers are "
        "**dev-set** means; below each, its sample standard deviation, the number of seeds n and "
        "links to the runs behind it (s1, s2, … are the seeds). As KLUE marks its own table, the "
        "best value of a column within a block of comparable rows is in **bold** and the best "
        "among base-size models in *italics*; smoke rows are a pipeline check and are not "
        "marked. Dev and test are different data, so compare reproduced rows with each other, "
        "and read the gap to the published numbers below as a check, not a ranking.\n\n"
        + table_html(sections_for(rows, published), tasks, RESULTS_PAGE),
        "## Reproduced minus published\n\n"
        "For each released checkpoint that has been reproduced: its dev mean minus its "
        "published test score. **Dev and test are different sets**, so a gap of a point or two "
        "either way is expected even for a faithful reproduction; a large gap on one task is "
        "worth a look.\n\n"
        + gap_html([r for r in rows if r.profile != "smoke"], published, tasks, RESULTS_PAGE),
        "## Figures\n\n"
        "One figure per task, one panel per metric: each dot is one seed's dev score, the "
        "diamond and bar their mean ± sd, the crosses the published test scores.\n\n"
        + figure_tabs(tasks),
        downloads_markdown(rows),
    ]
    failed = [r for r in records if r.get("status") == "failed"]
    if failed:
        items = "\n".join(
            f"- {r['task']} · `{r['model']}` · {r['profile']} · {r.get('config', 'default')} · "
            f"seed {r['seed']}: {r.get('error', 'no error recorded')}"
            for r in failed
        )
        parts.append(
            f"## Failed runs\n\nThese runs failed; they are not in the tables (see the "
            f"{{doc}}`status page </book/status>`).\n\n{items}"
        )
    return "\n\n".join(parts) + "\n"


def figure_path(task: Task, out_dir: Path = GENERATED) -> Path:
    return out_dir / "figures" / f"{task.name}.svg"


def figure_tabs(tasks: list[Task]) -> str:
    """The per-task figures as tabs of one tab set."""
    items = []
    for task in tasks:
        items.append(
            f"::::{{tab-item}} {short_name(task)}\n"
            f":::{{figure}} /{GENERATED.relative_to(ROOT).as_posix()}/figures/{task.name}.svg\n"
            f":alt: {task.title}: dev scores of each reproduced configuration beside the "
            "published test scores, one panel per metric.\n\n"
            f"{task.title}. More on the {{ref}}`task's page <task-{task.name}>`.\n"
            ":::\n::::"
        )
    return "::::::{tab-set}\n" + "\n".join(items) + "\n::::::"


def downloads_markdown(rows: list[Row]) -> str:
    """The downloads section: CSV, JSON and one model-index snippet per reproduced model."""
    generated = "/" + GENERATED.relative_to(ROOT).as_posix()
    text = (
        "## Downloads\n\n"
        f"- {{download}}`results.csv <{generated}/results.csv>`: long format, one row per run "
        "and metric (`kind` run), per configuration and metric (`kind` aggregate: its seeds, "
        "mean and sd) and per published number (`kind` published, with its split and source).\n"
        f"- {{download}}`results.json <{generated}/results.json>`: the same, as `runs` (one "
        "object per run, failed ones too, with its metrics and page), `aggregates` and "
        "`published`.\n"
    )
    models = sorted({r.model for r in rows}, key=_model_order)
    if not models:
        return text + "\nModel-index snippets appear here once a run has finished.\n"
    text += (
        "\nA Hugging Face model-index for each model with reproduced rows, made with "
        "`huggingface_hub`'s `ModelCardData` and `EvalResult`: paste it into the YAML header of "
        "a model card. It holds the dev-set means of the model's configurations, "
        "one result per task and data set.\n"
    )
    for model in models:
        name = f"{model_slug(model)}.yaml"
        text += (
            f"\n:::{{dropdown}} {model}\n"
            f"{{download}}`{name} <{generated}/model-index/{name}>`\n\n"
            f"```{{literalinclude}} {generated}/model-index/{name}\n:language: yaml\n```\n:::\n"
        )
    return text


def run_rows(records: list[dict], root: Path = ROOT) -> list[dict]:
    """The per-run objects of results.json (failed runs included)."""
    keep = (
        "task",
        "profile",
        "model",
        "data_source",
        "config",
        "seed",
        "status",
        "metrics",
        "error",
        "wall_time_s",
        "notebook_wall_time_s",
        "peak_memory_mb",
        "train_examples_per_second",
        "device",
        "git_commit",
        "model_revision",
        "data_checksum",
        "finished_at",
    )
    runs = []
    for record in sorted(records, key=_record_order):
        row = {k: record.get(k) for k in keep if k in record}
        row.setdefault("config", "default")
        row["split"] = SOURCE_SPLITS.get(record["data_source"], record["data_source"])
        page = run_page(record, root)
        row["page"] = f"{page}.html" if page else None
        runs.append(row)
    return runs


def _record_order(record: dict) -> tuple:
    order = list(all_tasks())
    task = order.index(record["task"]) if record["task"] in order else len(order)
    return (
        task,
        record["profile"],
        _model_order(record["model"]),
        record.get("config", ""),
        record["seed"],
    )


def aggregate_rows(rows: list[Row]) -> list[dict]:
    out = []
    for row in rows:
        for (task, metric), cell in row.cells.items():
            out.append(
                {
                    "task": task,
                    "metric": metric,
                    "profile": row.profile,
                    "model": row.model,
                    "data_source": row.data_source,
                    "config": row.config,
                    "split": row.split,
                    "seeds": len(cell.values),
                    "mean": round(cell.mean, 4),
                    "sd": None if cell.sd is None else round(cell.sd, 4),
                    "pages": [f"{p}.html" for _, p in cell.runs if p],
                }
            )
    return out


def published_records(published: pd.DataFrame) -> list[dict]:
    return [
        {k: getattr(r, k) for k in ("model", "task", "metric", "value", "split", "source")}
        for r in published.itertuples()
    ]


def downloads(records: list[dict], root: Path = ROOT) -> tuple[pd.DataFrame, dict]:
    """results.csv (long) and results.json (runs, aggregates, published)."""
    rows = reproduced_rows(records, root)
    published = published_scores()
    data = {
        "schema": 1,
        "runs": run_rows(records, root),
        "aggregates": aggregate_rows(rows),
        "published": published_records(published),
    }
    flat = []
    for run in data["runs"]:
        metrics = run.get("metrics") or {}
        for metric, value in metrics.items() if run["status"] == "succeeded" else [("", None)]:
            flat.append(
                {
                    "kind": "run",
                    **{k: run.get(k) for k in ("task", "profile", "model", "config")},
                    "data_source": run.get("data_source"),
                    "split": run["split"],
                    "metric": metric,
                    "seed": run.get("seed"),
                    "seeds": 1,
                    "value": value,
                    "status": run.get("status"),
                    "page": run.get("page"),
                }
            )
    for agg in data["aggregates"]:
        flat.append(
            {
                "kind": "aggregate",
                **{k: agg[k] for k in ("task", "profile", "model", "config", "data_source")},
                "split": agg["split"],
                "metric": agg["metric"],
                "seeds": agg["seeds"],
                "value": agg["mean"],
                "sd": agg["sd"],
            }
        )
    for pub in data["published"]:
        flat.append(
            {
                "kind": "published",
                "task": pub["task"],
                "model": pub["model"],
                "split": pub["split"],
                "metric": pub["metric"],
                "value": pub["value"],
                "source": pub["source"],
            }
        )
    names = ["kind", "task", "metric", "profile", "model", "config", "data_source", "split"]
    names += ["seed", "seeds", "value", "sd", "status", "page", "source"]
    frame = pd.DataFrame(flat, columns=names)
    frame["seed"] = frame["seed"].astype("Int64")
    frame["seeds"] = frame["seeds"].astype("Int64")
    return frame, data


def render_status(records: list[dict], root: Path = ROOT) -> str:
    """Every run, by task: a link to its page (or its error), outcome, time, machine, commit."""
    if not records:
        return "No run recorded yet.\n"
    tasks = all_tasks()
    parts = []
    by_task: dict[str, list[dict]] = defaultdict(list)
    for record in sorted(records, key=_record_order):
        by_task[record["task"]].append(record)
    for name, mine in by_task.items():
        title = tasks[name].title if name in tasks else name
        rows, errors = [], []
        for r in mine:
            config = "" if r.get("config", "default") == "default" else f" · {r['config']}"
            text = f"{r['model']} · {r['profile']}{config} · seed {r['seed']}"
            page = run_page(r, root)
            run = f"{{doc}}`{_role_text(text)} </{page}>`" if page else text
            status = r["status"]
            if status == "failed":
                errors.append(f"- {text}: {r.get('error', 'no error recorded')}")
                status = "**failed** (below)"
            wall = f"{r['wall_time_s']:,.0f} s" if r.get("wall_time_s") is not None else "—"
            finished = (r.get("finished_at") or "—").replace("T", " ")[:16]
            commit = f"`{(r.get('git_commit') or 'unknown')[:12]}`"
            rows.append([run, status, wall, finished, str(r.get("device", "—")), commit])
        header = ["run", "status", "wall time", "finished", "device", "commit"]
        text = f"## {title}\n\n" + list_table(header, rows, [34, 13, 9, 14, 16, 14])
        if errors:
            text += "\nErrors of the failed runs:\n\n" + "\n".join(errors)
        parts.append(text)
    newest = max(
        (r for r in records if "libraries" in r), key=lambda r: r["finished_at"], default=None
    )
    if newest:
        versions = ", ".join(f"{k} {v}" for k, v in newest["libraries"].items())
        parts.append(f"Library versions of the most recent run: {versions}.")
    return "\n\n".join(parts) + "\n"


def _role_text(text: str) -> str:
    """Text safe inside a MyST role's `text <target>` form."""
    return text.replace("<", "‹").replace(">", "›").replace("`", "'")


def write_report(out_dir: Path = GENERATED, results: Path = RESULTS) -> list[Path]:
    """Write the results page body, its figures and downloads, and the status page."""
    from kluebook.model_index import write_model_index
    from kluebook.result_figures import task_figure

    records = load_records(results)
    rows = reproduced_rows(records)
    published = published_rows(published_scores())
    frame, data = downloads(records)
    texts = {
        out_dir / "results.md": render(records),
        out_dir / "results.csv": frame.to_csv(index=False),
        out_dir / "results.json": json.dumps(data, ensure_ascii=False, indent=1) + "\n",
        out_dir / "status.md": render_status(records),
    }
    for path, text in texts.items():
        write_text_if_changed(path, text)
    paths = list(texts)
    for task in all_tasks().values():
        path = figure_path(task, out_dir)
        task_figure(task, rows, published, path)
        paths.append(path)
    paths += write_model_index(rows, out_dir / "model-index")
    return paths
