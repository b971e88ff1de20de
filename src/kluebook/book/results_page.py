"""The generated part of the results page (MyST Markdown): the KLUE table, the gap to the
published numbers, a figure per task, the prompted scores' sensitivity to the prompt, the
downloads and the failed runs."""

from pathlib import Path

from kluebook.book import myst
from kluebook.book.downloads import downloads_markdown
from kluebook.book.errata_page import corrected_html
from kluebook.book.gap_table import gap_html
from kluebook.book.klue_table import (
    CORRECTED_ANCHOR,
    KLUE_BASELINE,
    KLUE_REPOSITORY,
    sections_for,
    short_name,
    table_html,
)
from kluebook.book.prompt_sensitivity import results_section
from kluebook.book.submitted import SubmittedRow
from kluebook.common.paths import GENERATED, ROOT
from kluebook.methods.registry import method_named
from kluebook.recording.records import RunRecord
from kluebook.results.aggregation import published_rows, published_scores, reproduced_rows
from kluebook.results.links import ERRATA_PAGE, RESULTS_PAGE, STATUS_PAGE
from kluebook.results.pooling import run_key
from kluebook.results.sensitivity import sweeps
from kluebook.tasks import Task, all_tasks


def render(records: list[RunRecord], root: Path = ROOT, submitted: list[SubmittedRow] = ()) -> str:
    """The generated part of the results page (MyST Markdown with HTML tables); `submitted`:
    the submissions' rows (`kluebook.book.submitted`), a block of their own."""
    tasks = list(all_tasks().values())
    rows = reproduced_rows(records, root)
    published = published_rows(published_scores())
    reference = published_rows(published_scores("original"))
    parts = [
        "## The KLUE table\n\n"
        f"One row per model, the eight tasks and their official metrics as columns, as in the "
        f"[KLUE README]({KLUE_REPOSITORY}); the metrics are computed as the official "
        f"[KLUE-baseline]({KLUE_BASELINE}) code computes them. Published numbers are "
        "**test-set** scores; the README's first table, from 2021, was on the **dev set** (its "
        "note says how that is known) and is the reference for the reproduced rows. Reproduced "
        "numbers are **dev-set** means; below each, its sample standard deviation, the number "
        "of seeds n and links to the runs behind it (s1, s2, … are the seeds; each opens the "
        "browser of its run's items). With JavaScript the table can be filtered by block (the "
        "Block column's filter) and sorted by any column, within its blocks. Each metric "
        "header links to the metric's definition; a number after it marks an official metric "
        "that is not what its name suggests (notes below the table). As KLUE marks its own "
        "table, the best value of a column within a block of comparable rows is in **bold** and "
        "the best among base-size models in *italics*; smoke rows are a pipeline check and are "
        "not marked. Prompted rows (a language model answering prompts, zero- or few-shot: "
        "{ref}`prompting`) are labelled with their shots and sit in blocks of their own, "
        "never ranked against the fine-tuned rows: `kluebook compare` tells whether a "
        "prompted and a fine-tuned configuration differ on the same dev items. Dev and test "
        "are different data, so compare reproduced rows with each other and with the dev "
        "reference, and read the gap to the test numbers below as a check, not a ranking. "
        "Submitted rows are any model's dev predictions, submitted as files and "
        "**recomputed from the predictions** by the same official metric code (never a number "
        "typed in); each links to its page with its metadata, the checksums of its inputs, "
        "every number's interval and its items. A submission that declares KLUE dev data used "
        "for training or model selection is marked dev, a number above every published dev "
        "number ▲: flagged, not hidden.\n\n"
        + table_html(sections_for(rows, published, reference, submitted), tasks, RESULTS_PAGE),
        f"({CORRECTED_ANCHOR})=\n## Published, reproduced, corrected\n\n"
        "The official metric on the official data is the headline number above. Where a known "
        f"erratum of KLUE's metrics or labels moves one, its corrected value stands here beside "
        "the published and the reproduced one, never in their columns: a metric erratum's "
        "corrected value is computed from the same predictions, a label erratum's from the same "
        "predictions against the corrected gold. An official metric that does what its source "
        "does under a misleading name is no erratum of that kind: the value beside it is an "
        "alternative statistic, marked a in the table above where a correction is marked c. "
        f"The {{doc}}`errata page </{ERRATA_PAGE}>` "
        "says what each erratum is, where it was reported and what it does to every run.\n\n"
        + corrected_html(rows, published, tasks, RESULTS_PAGE),
        "## Reproduced minus published\n\n"
        "For each released checkpoint that has been reproduced: its dev mean minus its "
        "published test score. **Dev and test are different sets**, so a gap of a point or two "
        "either way is expected even for a faithful reproduction; a large gap on one task is "
        "worth a look.\n\n"
        + gap_html([r for r in rows if r.profile != "smoke"], published, tasks, RESULTS_PAGE),
        "## Figures\n\n"
        "One figure per task, one panel per metric: each dot is one seed's dev score, the "
        "diamond and bar their mean ± sd, the crosses the published test scores. Smoke runs "
        "have panels of their own, below, with the task's smoke floor as a dashed line: a "
        "pipeline check, never drawn on the published axes.\n\n" + figure_tabs(tasks),
        results_section([(task, sweeps(task, rows)) for task in tasks]),
        downloads_markdown(rows, records, root, submitted),
    ]
    failed = [r for r in records if r.status in ("failed", "interrupted")]
    if failed:
        kept = {run_key(r) for r in records if r.status == "succeeded"}
        items = "\n".join(
            f"- {myst.text(r.task)} · {myst.code(r.model)} · {myst.text(r.profile)} · "
            f"{myst.text(r.config)} · seed {r.seed}: {myst.text(r.error or 'no error recorded')}"
            + ("; its last good result stays in the table" if run_key(r) in kept else "")
            for r in failed
        )
        parts.append(
            f"## Failed runs\n\nThe last attempt of these runs failed or was interrupted; a "
            "failed attempt never replaces a good result (see the "
            f"{{doc}}`status page </{STATUS_PAGE}>`).\n\n{items}"
        )
    return "\n\n".join(parts) + "\n"


def build_contents(records: list[RunRecord], root: Path = ROOT) -> str:
    """One paragraph for the front page: which profiles, checkpoints and splits this build's
    runs are of (or that it has none)."""
    rows = reproduced_rows(records, root)
    if not rows:
        return "**This build holds no run yet**: only the published numbers.\n"
    parts = []
    kinds = {(r.profile, r.method) for r in rows}
    for profile, method in sorted(kinds, key=lambda k: (k[0] == "smoke", k[0], k[1])):
        mine = [r for r in rows if (r.profile, r.method) == (profile, method)]
        items = ", ".join(
            f"{myst.code(r.model)}"
            f"{f' ({myst.text(r.configuration)})' if r.configuration else ''} on "
            f"{myst.text(r.split)}, "
            f"{seeds} seed{'s' if seeds > 1 else ''}"
            for r in mine
            for seeds in [max(len(c.values) for c in r.cells.values())]
        )
        what, made = "", method_named(method)
        if profile == "smoke":
            what = (
                f" (a tiny randomly initialised {made.smoke_model} {made.smoke_made} on "
                "generated data: a pipeline check, not a KLUE result)"
            )
        parts.append(f"**{profile}** {made.runs_word} of {items}{what}")
    return "**This build holds** " + "; ".join(parts) + ".\n"


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
