"""The generated part of the results page (MyST Markdown): the KLUE table, the gap to the
published numbers, a figure per task, the downloads and the failed runs."""

from pathlib import Path

from kluebook.aggregation import published_rows, published_scores, reproduced_rows, run_key
from kluebook.downloads import downloads_markdown
from kluebook.klue_table import gap_html, sections_for, short_name, table_html
from kluebook.links import RESULTS_PAGE
from kluebook.paths import GENERATED, ROOT
from kluebook.tasks import Task, all_tasks


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
    failed = [r for r in records if r.get("status") in ("failed", "interrupted")]
    if failed:
        kept = {run_key(r) for r in records if r.get("status") == "succeeded"}
        items = "\n".join(
            f"- {r['task']} · `{r['model']}` · {r['profile']} · {r.get('config', 'default')} · "
            f"seed {r['seed']}: {r.get('error', 'no error recorded')}"
            + ("; its last good result stays in the table" if run_key(r) in kept else "")
            for r in failed
        )
        parts.append(
            f"## Failed runs\n\nThe last attempt of these runs failed or was interrupted; a "
            "failed attempt never replaces a good result (see the "
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
