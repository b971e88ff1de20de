"""Published, reproduced, corrected: the table of each reproduced number an erratum moves,
beside its published and its corrected value (on the results page), the errata page (every
erratum with its source, status, the items it touches and its measured effect on the runs of
this book) and the lines of a task's page that say which of its numbers an erratum moves.

A bug's or a data error's value is a correction; a naming problem's (the official code does what
its source does, under a misleading name) is an alternative statistic beside the official one,
and every page says which it is. The pages are Markdown (`myst`); their HTML, the template
`errata_page.html`."""

from kluebook.book.klue_table import correcting_errata, short_name
from kluebook.book.myst import code, list_table, text
from kluebook.book.templating import parts
from kluebook.errata.manifest import Erratum, manifest
from kluebook.results.aggregation import Row, corrected_key
from kluebook.results.links import ERRATA_PAGE, href
from kluebook.tasks import Metric, Task

NATURES = {
    "bug": "bug: the code does not do what it says; its value is a correction",
    "naming": (
        "naming: the code does what its source does, under a misleading name; its value is an "
        "alternative statistic, not a correction"
    ),
    "data": "data error: the files are wrong; its value is a correction",
}
KINDS = {
    "metric": "metric: the official code computes something else than its name says",
    "label": "labels: gold labels are wrong; stored predictions are rescored",
    "text": "text: the items change; the corrected number needs a run on them",
}


def anchor(erratum: Erratum) -> str:
    return f"erratum-{erratum.id}"


def moved_metrics(task: Task, erratum: Erratum) -> list[Metric]:
    """The official metrics of `task` that `erratum` moves (a data erratum: all of them)."""
    keys = list(erratum.variants) if erratum.kind == "metric" else [m.key for m in task.metrics]
    return [m for m in task.metrics if m.key in keys]


def corrections(tasks: list[Task]) -> list[tuple[Task, Erratum, Metric]]:
    """Every (task, erratum, official metric) whose corrected value runs record: the applied
    metric and label errata (a text erratum's numbers are those of runs on its items)."""
    return [
        (task, erratum, metric)
        for task in tasks
        for metric in task.metrics
        for erratum in correcting_errata(task, metric)
    ]


def what_it_gives(erratum: Erratum) -> str:
    """What an erratum's value is, in words: a correction, or an alternative statistic."""
    return "correction" if erratum.corrects else "alternative statistic, not a correction"


def corrected_lines(rows: list[Row], published: list[Row], tasks: list[Task]) -> list[tuple]:
    """(row, task, erratum, metric, published, reproduced, corrected, why the corrected value is
    stale) of each reproduced number an erratum moves, in the table's row order."""
    by_name = {r.label: r for r in published}
    lines = []
    for row in rows:
        theirs = by_name.get(row.published_name or "")
        for task, erratum, metric in corrections(tasks):
            fixed = row.cells.get((task.name, corrected_key(metric.key, erratum.id)))
            mine = row.cells.get((task.name, metric.key))
            if fixed is None or mine is None:
                continue
            official = theirs.cells.get((task.name, metric.key)) if theirs else None
            lines.append(
                (
                    *(row, task, erratum, metric),
                    *(official and official.mean, mine.mean, fixed.mean, fixed.stale),
                )
            )
    return lines


def corrected_html(rows: list[Row], published: list[Row], tasks: list[Task], page: str) -> str:
    """The table of the reproduced numbers the errata move: published (test), reproduced (dev,
    official metric on the official data) and corrected, each correction linked to its erratum;
    a naming erratum's value is in the same column, said to be an alternative statistic."""
    lines = corrected_lines(rows, published, tasks)
    if not lines:
        return "No run of this build records a corrected value yet.\n"
    shown = [
        {
            "label": row.label,
            "facts": " · ".join(f for f in (row.profile, row.split, row.configuration) if f),
            "metric": f"{short_name(task)} {metric.label}",
            "link": href(page, ERRATA_PAGE, anchor(erratum)),
            "erratum": erratum,
            "gives": what_it_gives(erratum),
            "official": official,
            "mine": mine,
            "fixed": fixed,
            "stale": stale,
        }
        for row, task, erratum, metric, official, mine, fixed, stale in lines
    ]
    # A corrected value whose runs' code or errata version changed since is marked stale.
    return str(parts("errata_page.html").corrected_table(shown)) + "\n"


def task_errata(task: Task) -> str:
    """A task page's section on the errata that move its numbers (empty when none does)."""
    mine = manifest().of_task(task.name)
    if not mine:
        return ""
    items = [
        f"- {{ref}}`{erratum.title} <{anchor(erratum)}>`: "
        f"{'moves' if erratum.corrects else 'an alternative statistic beside'} "
        f"{', '.join(m.label for m in moved_metrics(task, erratum))} ({erratum.nature}, "
        f"{erratum.kind}{'' if erratum.applied else '; pending, not applied yet'})"
        for erratum in mine
    ]
    return (
        "## Errata\n\nThe official numbers of this task stay the headline. These known errata "
        f"move them or name them better (manifest {manifest().version}); where one applies, its "
        "corrected value (or, for a naming problem, its alternative statistic) stands beside the "
        f"official one, marked, on the {{doc}}`errata page </{ERRATA_PAGE}>` and under the "
        "results table:\n\n" + "\n".join(items) + "\n"
    )


def effect_lines(erratum: Erratum, task: Task, rows: list[Row]) -> list[str]:
    """The measured effect of `erratum` on the rows of this build: each moved metric's
    reproduced and corrected mean, and their difference."""
    lines = []
    for row in rows:
        for metric in moved_metrics(task, erratum):
            mine = row.cells.get((task.name, metric.key))
            fixed = row.cells.get((task.name, corrected_key(metric.key, erratum.id)))
            if mine is None or fixed is None:
                continue
            facts = ", ".join(f for f in (row.profile, row.split, row.configuration) if f)
            lines.append(
                f"- {code(row.label)} ({text(facts)}): {metric.label} {mine.mean:.2f} → "
                f"{fixed.mean:.2f} "
                f"({fixed.mean - mine.mean:+.2f}, n={len(fixed.values)})"
                + (f", stale: {fixed.stale} changed" if fixed.stale else "")
            )
    return lines


def where(erratum: Erratum) -> str:
    """What of the task an erratum is in: a split, or the task's ontology."""
    return "its ontology" if erratum.split == "ontology" else f"{erratum.split} split"


def erratum_section(erratum: Erratum, task: Task, rows: list[Row]) -> str:
    """One erratum: why, where it comes from, what it touches and what it does here."""
    facts = [
        ["Task", f"{{ref}}`{task.title} <task-{task.name}>`, {where(erratum)}"],
        ["Error", NATURES[erratum.nature]],
        ["Kind", KINDS[erratum.kind]],
        [
            "Moves" if erratum.corrects else "Beside",
            ", ".join(m.label for m in moved_metrics(task, erratum)),
        ],
        ["Upstream", f"[{erratum.source.label}]({erratum.source.url})"],
        ["Upstream status", erratum.status],
    ]
    if erratum.kind == "metric":
        variants = ", ".join(f"`{k}` → `{v}`" for k, v in erratum.variants.items())
        name = "Corrected value" if erratum.corrects else "Alternative statistic"
        facts.append([name, f"{variants} (computed from every run's predictions)"])
    else:
        digest = erratum.file.sha256 or erratum.file.git_blob
        facts.append(["File", f"`{erratum.file.path}` (`{digest[:16]}…`)"])
        if erratum.applied:
            items = sorted({edit.guid for edit in erratum.edits})
            listed = parts("errata_page.html").guid_list(items)
            facts.append(
                ["Items", f"{len(items):,} ({len(erratum.edits):,} edits, each checked): {listed}"]
            )
        else:
            facts.append(["Applied", f"pending: {erratum.pending}"])
    effect = effect_lines(erratum, task, rows)
    if not erratum.applied:
        measured = "Not applied yet, so it moves no number of this book."
    elif erratum.kind == "text":
        measured = (
            "Its number is that of runs on the corrected items (`kluebook run --data-source "
            f"official --set errata={manifest().version}`): their rows sit in blocks of their "
            "own in the results table, never pooled with runs on the v1.1 items."
        )
    elif effect:
        beside = "" if erratum.corrects else " (official value → alternative statistic)"
        measured = f"Measured on the runs of this build{beside}:\n\n" + "\n".join(effect)
    elif erratum.kind == "label":
        measured = (
            "No run of this build is on the file it names: its edits are keyed to the official "
            "v1.1 file by its SHA-256 and do not apply to generated data, so the smoke runs "
            "show no effect."
        )
    else:
        value = "corrected value" if erratum.corrects else "alternative statistic"
        measured = f"No run of this build of this task records its {value} yet."
    return (
        f"({anchor(erratum)})=\n## {erratum.title}\n\n{erratum.why}\n\n"
        + list_table([], facts, [25, 75])
        + f"\n{measured}\n"
    )


def render_errata(rows: list[Row], tasks: list[Task]) -> str:
    """The generated part of the errata page."""
    by_name = {task.name: task for task in tasks}
    errata = [e for e in manifest().errata if e.task in by_name]
    table = [
        [
            f"{{ref}}`{e.id} <{anchor(e)}>`",
            short_name(by_name[e.task]),
            e.nature,
            e.kind,
            f"[{e.source.label}]({e.source.url})",
            e.status,
            "yes" if e.applied else "pending",
        ]
        for e in errata
    ]
    header = ["Erratum", "Task", "Error", "Kind", "Upstream", "Upstream status", "Applied"]
    return (
        f"Errata manifest version **{manifest().version}**: {len(errata)} errata, "
        f"{sum(e.applied for e in errata)} of them applied.\n\n"
        + list_table(header, table, [22, 7, 8, 8, 22, 22, 11])
        + "\n"
        + "\n".join(erratum_section(e, by_name[e.task], rows) for e in errata)
    )
