"""How the pages show a prompted score's sensitivity to the prompt (`results.sensitivity`): per
sweep over templates, each model's spread over templates and demonstration seeds, and whether
two models' ranking holds across the templates; the task page and the results page show it,
with the task's sensitivity figure (`result_figures.sensitivity_figure`)."""

from pathlib import Path

from kluebook.book.myst import code, list_table, text
from kluebook.common.paths import GENERATED, ROOT
from kluebook.results.sensitivity import BETTER, WORSE, Ranking, Spread, Sweep
from kluebook.results.uncertainty import interval_text
from kluebook.tasks import Task

HOW = (
    "A prompted score depends on the prompt: the same model, asked in other words or shown "
    "other demonstrations, answers otherwise. A sweep over the task's templates and "
    "demonstration seeds (`kluebook run --matrix prompt-sensitivity`, each template a "
    "configuration of its own, its seeds pooled within it) shows by how much: for each model, "
    "its lowest, median and highest run over every template and seed, and each template's "
    "mean with its 95% bootstrap interval (the dev set and the seeds resampled together). For "
    "two models, the paired comparison of `kluebook compare` on each template says whether one "
    "beats the other there, and so whether their ranking holds across the templates."
)
ALT = (
    "{title}: each prompt template's dev score for each model, the mean of its demonstration "
    "seeds with its 95% interval, and each seed's own score."
)
CAPTION = (
    "Each row is one template of one model: the diamond and bar are the mean of its "
    "demonstration seeds and its 95% bootstrap interval, the dots each seed's score."
)


def sensitivity_figure_path(task: Task, out_dir: Path = GENERATED) -> Path:
    return out_dir / "figures" / f"{task.name}-sensitivity.svg"


def _spread_table(task: Task, spreads: list[Spread]) -> str:
    labels = {m.key: m.label for m in task.metrics}
    rows = []
    for spread in spreads:
        each = "; ".join(
            f"{text(t.template)} {t.mean:.2f}"
            + (f" ({interval_text(t.interval)})" if t.interval else "")
            + (f", stale: {text(t.stale)}" if t.stale else "")
            for t in spread.templates
        )
        rows.append(
            [
                code(spread.model),
                labels.get(spread.metric, spread.metric),
                f"{len(spread.templates)} templates, {len(spread.runs)} runs",
                f"{spread.low:.2f}",
                f"{spread.median:.2f}",
                f"{spread.high:.2f}",
                each,
            ]
        )
    header = ["model", "metric", "runs", "lowest", "median", "highest"]
    return list_table(
        [*header, "each template: mean (95% interval)"], rows, [16, 10, 10] + [8] * 3 + [40]
    )


def _templates(ranking: Ranking, verdict: str) -> str:
    found = ranking.templates_where(verdict)
    shown = f" ({text(', '.join(found))})" if found else ""
    return f"{len(found)} of {len(ranking.verdicts)}{shown}"


def _ranking_table(task: Task, rankings: list[Ranking]) -> str:
    labels = {m.key: m.label for m in task.metrics}
    neither = "not distinguishable with this dev set"
    rows = [
        [
            code(r.a),
            code(r.b),
            labels.get(r.metric, r.metric),
            _templates(r, BETTER),
            _templates(r, WORSE),
            _templates(r, neither),
            "yes" if r.holds else "no",
        ]
        for r in rankings
    ]
    header = ["A", "B", "metric", "A beats B on", "B beats A on", "neither on", "ranking holds"]
    return list_table(header, rows, [15, 15, 10, 16, 16, 16, 12])


def sweep_markdown(task: Task, sweep: Sweep) -> str:
    """One sweep's spreads and rankings, under a line that says how its runs were made."""
    parts = [
        f"**{text(sweep.profile)} profile, {text(sweep.setting)}** on {text(sweep.split)}"
        + (" (a pipeline check, not a KLUE score)" if sweep.profile == "smoke" else "")
        + ":\n",
        _spread_table(task, sweep.spreads),
    ]
    if sweep.rankings:
        parts.append(_ranking_table(task, sweep.rankings))
    return "\n".join(parts)


def _figure(task: Task) -> str:
    figure = sensitivity_figure_path(task).relative_to(ROOT).as_posix()
    return f":::{{figure}} /{figure}\n:alt: {ALT.format(title=task.title)}\n\n{CAPTION}\n:::\n"


def sensitivity_markdown(task: Task, sweeps: list[Sweep]) -> str:
    """A task page's sensitivity to the prompt: what it shows, each sweep and the task's
    figure, or how to make a sweep where there is none."""
    if not sweeps:
        return (
            f"No sweep over the task's prompt templates yet: `kluebook run --matrix "
            f"prompt-sensitivity --tasks {task.name}` runs one.\n"
        )
    return "\n".join([HOW + "\n", *(sweep_markdown(task, s) for s in sweeps), _figure(task)])


def results_section(sweeps: list[tuple[Task, list[Sweep]]]) -> str:
    """The results page's section: what it shows, then each task's sweeps and figure."""
    parts = [f"## Sensitivity to the prompt\n\n{HOW}\n"]
    for task, found in sweeps:
        if found:
            parts += [f"### {task.title}\n", *(sweep_markdown(task, s) for s in found)]
            parts.append(_figure(task))
    without = [task.name for task, found in sweeps if not found]
    if len(without) == len(sweeps):
        parts.append(
            "No sweep over prompt templates yet: `kluebook run --matrix prompt-sensitivity`.\n"
        )
    elif without:
        parts.append(f"No sweep over prompt templates yet for {', '.join(without)}.\n")
    return "\n".join(parts)
