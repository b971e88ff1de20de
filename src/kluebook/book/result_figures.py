"""The results figure of each task, built from the run records when the report is written, and
the sensitivity figure of each task with a sweep over prompt templates (`sensitivity_figure`).

One panel per metric, stacked, so the figure stays narrow enough to read on a phone: a row per
model, each seed's dev score a dot, their mean a diamond with a bar of ± one sd, and each
published test score a cross. Smoke rows (a tiny randomly initialised model fine-tuned on
generated data) are never drawn on the published axes: they get panels of their own below, with
the task's smoke floor as a dashed line, a pipeline check and not a score to compare. It is
saved as SVG, sharp at any zoom, its text drawn as paths so that it looks the same on every
machine.
"""

import math
import textwrap
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

COLOURS = {"published": "black", "reproduced": "#1f6fb4", "smoke": "#8a8a8a", "floor": "#b8860b"}
# Sizes for a figure 4 inches wide: shown at its natural size on a laptop (text about as large
# as the page's), and scaled by about 0.85 on a phone, where 12 points stay legible.
WIDTH = 4.0
STYLE = {
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.titleweight": "bold",
    "axes.labelsize": 12,
    "xtick.labelsize": 12,
    "ytick.labelsize": 12,
    "legend.fontsize": 12,
    "svg.fonttype": "path",
    "svg.hashsalt": "kluebook",  # the same records give the same file
    "text.parse_math": False,  # a name is text: a `$` in a model or a template is not math
}


def _label(row) -> str:
    """A row's tick label: the model; for a reproduced row, its profile and configuration on
    the lines below (published rows are told apart by their marker)."""
    if row.kind == "published":
        return row.label
    detail = ", ".join(filter(None, [row.profile, row.configuration]))
    return row.label + "\n" + "\n".join(textwrap.wrap(detail, 20))


def _kind(row) -> str:
    return row.kind if row.profile != "smoke" else "smoke"


def legend(shown) -> list[Line2D]:
    """Legend entries for the kinds of rows the figure shows."""
    kinds = {_kind(r) for r in shown}
    handles = []
    if "published" in kinds:
        handles.append(_marker("x", "published", "published, test"))
    for kind, name in (("reproduced", "dev"), ("smoke", "smoke")):
        if kind in kinds:
            handles.append(_marker("D", kind, f"{name} mean ± sd"))
            handles.append(_marker("o", kind, f"{name}, one seed", alpha=0.45))
    if "smoke" in kinds:
        handles.append(Line2D([], [], ls="--", color=COLOURS["floor"], label="smoke floor"))
    return handles


def _marker(marker: str, kind: str, label: str, alpha: float = 1.0) -> Line2D:
    return Line2D([], [], marker=marker, ls="", color=COLOURS[kind], alpha=alpha, label=label)


def panels(task, rows, published) -> list[tuple]:
    """(metric, rows, smoke?) for each panel: the published axes first (published rows and
    reproduced rows of real checkpoints), then the smoke rows' own axes."""
    keys = {m.key: (task.name, m.key) for m in task.metrics}
    real = [r for r in [*rows, *published] if _kind(r) != "smoke"]
    smoke = [r for r in rows if _kind(r) == "smoke"]
    out = []
    for group, is_smoke in ((real, False), (smoke, True)):
        for metric in task.metrics:
            shown = [r for r in group if keys[metric.key] in r.cells]
            if shown or (not is_smoke and not smoke):
                out.append((metric, shown, is_smoke))
    # Rows, none of them with this task's scores (a prompted run's without its metric, say):
    # one empty panel, which says there are no results yet.
    return out or [(task.metrics[0], [], bool(smoke))]


def _draw(ax, task, metric, shown, is_smoke) -> None:
    key = (task.name, metric.key)
    spans = [max(1.0, 0.5 * (_label(r).count("\n") + 1)) for r in shown]
    ys = [sum(spans[:i]) + spans[i] / 2 for i in range(len(spans))]
    values = []
    for y, row in zip(ys, shown, strict=True):
        cell = row.cells[key]
        colour = COLOURS[_kind(row)]
        values += cell.values
        if row.kind == "published":
            ax.scatter([cell.mean], [y], marker="x", s=70, color=colour, zorder=3)
            continue
        ax.scatter(cell.values, [y] * len(cell.values), s=28, color=colour, alpha=0.45)
        ax.errorbar(
            [cell.mean], [y], xerr=[cell.sd or 0], fmt="D", ms=7, color=colour, capsize=4, zorder=3
        )
    floor = task.smoke_floor if is_smoke and task.smoke_floor.metric == metric.key else None
    if floor is not None:
        ax.axvline(floor.value, ls="--", color=COLOURS["floor"], zorder=2)
        values.append(floor.value)
    ax.set_yticks(ys, [_label(r) for r in shown])
    ax.set_ylim(max(1.0, sum(spans)), 0)
    low, high = (min(values), max(values)) if values else (0.0, 100.0)
    pad = max(2.0, 0.08 * (high - low))
    ax.set_xlim(max(0.0, low - pad), min(100.0, high + pad) if high <= 100 else high + pad)
    title = f"{metric.label}: smoke, generated data" if is_smoke else metric.label
    ax.set_title(title, loc="left", fontsize=12)
    ax.set_xlabel("pipeline check, not a KLUE score" if is_smoke else "score (0–100)")
    ax.grid(axis="x", alpha=0.35)
    ax.spines[["top", "right"]].set_visible(False)
    if not shown:
        ax.text(0.5, 0.5, "no results yet", transform=ax.transAxes, ha="center")


def task_figure(task, rows, published, path: Path) -> None:
    """The figure of one task (see the module's docstring) from reproduced and published rows."""
    layout = panels(task, rows, published)
    # Each panel gets the height its rows' labels need: a configuration can take several lines.
    heights = [
        0.36 * max(1.0, sum(max(1.0, 0.5 * (_label(r).count("\n") + 1)) for r in shown)) + 1.2
        for _, shown, _ in layout
    ]
    with matplotlib.rc_context(STYLE):
        entries = legend([r for _, shown, _ in layout for r in shown])
        legend_height = 0.3 * math.ceil(len(entries) / 2) + 0.35
        height = sum(heights) + legend_height
        fig = Figure(figsize=(WIDTH, height))
        axes = fig.subplots(len(layout), 1, squeeze=False, height_ratios=heights)
        for ax, (metric, shown, is_smoke) in zip(axes[:, 0], layout, strict=True):
            _draw(ax, task, metric, shown, is_smoke)
        fig.suptitle(task.title, x=0.02, ha="left", fontsize=13, fontweight="bold")
        fig.legend(
            handles=entries,
            loc="lower center",
            ncol=2,
            frameon=False,
            columnspacing=1.0,
            handletextpad=0.3,
        )
        fig.tight_layout(rect=(0, legend_height / height, 1, 1))
        path.parent.mkdir(parents=True, exist_ok=True)
        # "tight": the canvas grows to whatever a long label or the legend needs.
        fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")


# The colours of the models of a sensitivity figure, in turn (the Okabe-Ito palette, told apart
# without colour vision as well).
MODEL_COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")


def _model_marker(marker: str, colour: str, label: str, alpha: float = 1.0) -> Line2D:
    return Line2D([], [], marker=marker, ls="", color=colour, alpha=alpha, label=label)


def _sensitivity_panel(ax, sweep, metric, models: list[str]) -> None:
    """One sweep's panel on one metric: a row per model and template, the models in colour."""
    spreads = [s for s in sweep.spreads if s.metric == metric.key]
    labels, values, y = [], [], 0
    for spread in spreads:
        colour = MODEL_COLOURS[models.index(spread.model) % len(MODEL_COLOURS)]
        for score in spread.templates:
            ax.scatter(score.values, [y] * len(score.values), s=28, color=colour, alpha=0.45)
            low, high = (score.interval.low, score.interval.high) if score.interval else (0, 0)
            error = [[score.mean - low], [high - score.mean]] if score.interval else None
            ax.errorbar(
                [score.mean], [y], xerr=error, fmt="D", ms=7, color=colour, capsize=4, zorder=3
            )
            values += [*score.values, *((low, high) if score.interval else ())]
            labels.append(score.template)
            y += 1
    ax.set_yticks(range(len(labels)), labels)
    ax.set_ylim(max(1, len(labels)) - 0.5, -0.5)
    low, high = (min(values), max(values)) if values else (0.0, 100.0)
    pad = max(2.0, 0.08 * (high - low))
    ax.set_xlim(max(0.0, low - pad), min(100.0, high + pad) if high <= 100 else high + pad)
    title = f"{metric.label}: {sweep.profile}, {sweep.setting}"
    ax.set_title("\n".join(textwrap.wrap(title, 36)), loc="left", fontsize=12)
    smoke = sweep.profile == "smoke"
    ax.set_xlabel("pipeline check, not a KLUE score" if smoke else "score (0–100)")
    ax.grid(axis="x", alpha=0.35)
    ax.spines[["top", "right"]].set_visible(False)


def sensitivity_figure(task, sweeps, path: Path) -> None:
    """The sensitivity figure of one task: a panel per sweep over templates and metric, a row
    per model and template (the model told by its colour, in the legend), its mean with its 95%
    interval and each demonstration seed's score (`results.sensitivity`)."""
    layout = [
        (sweep, metric)
        for sweep in sweeps
        for metric in task.metrics
        if any(s.metric == metric.key for s in sweep.spreads)
    ]
    heights = [
        0.5 * sum(len(s.templates) for s in sweep.spreads if s.metric == metric.key) + 1.4
        for sweep, metric in layout
    ]
    models = list(dict.fromkeys(s.model for sweep, _ in layout for s in sweep.spreads))
    entries = [
        _model_marker("D", MODEL_COLOURS[i % len(MODEL_COLOURS)], f"{model}: mean, 95% interval")
        for i, model in enumerate(models)
    ]
    entries.append(_model_marker("o", COLOURS["smoke"], "one demonstration seed", alpha=0.45))
    legend_height = 0.3 * len(entries) + 0.35
    with matplotlib.rc_context(STYLE):
        height = sum(heights) + legend_height
        fig = Figure(figsize=(WIDTH, height))
        axes = fig.subplots(len(layout), 1, squeeze=False, height_ratios=heights)
        for ax, (sweep, metric) in zip(axes[:, 0], layout, strict=True):
            _sensitivity_panel(ax, sweep, metric, models)
        fig.suptitle(
            f"{task.title}: by prompt template", x=0.02, ha="left", fontsize=13, fontweight="bold"
        )
        fig.legend(handles=entries, loc="lower center", ncol=1, frameon=False, handletextpad=0.3)
        fig.tight_layout(rect=(0, legend_height / height, 1, 1))
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
