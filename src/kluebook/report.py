"""The results table, generated from the run records before the book is built.

Every number carries its split and source: reproduced numbers come from results/ (dev split),
published ones from configs/published_scores.csv, one row per (table, model, task, metric) with its
split and source (the KLUE README: the private test set). A task without published numbers is
shown without them.
"""

import io
import math
import os
import statistics
from pathlib import Path

import pandas as pd

from kluebook.checkpoints import model_entry, registered_models
from kluebook.json_files import write_text_if_changed
from kluebook.paths import CONFIGS, GENERATED, RESULTS
from kluebook.records import read_record
from kluebook.tasks import Task, all_tasks

PROFILE_NOTES = {
    "smoke": "pipeline check on generated data with a tiny untrained model — not a reproduction",
    "paper": "official recipe on the official data",
}
SOURCE_SPLITS = {
    "generated": "dev (generated)",
    "official": "dev (KLUE v1.1)",
    "hub": "validation (klue/klue, v1)",
}


def load_records(results: Path = RESULTS) -> list[dict]:
    """Every readable record under results/."""
    found = (read_record(path) for path in sorted(results.rglob("*.json")))
    return [r for r in found if r is not None]


def published_scores(table: str = "current") -> pd.DataFrame:
    """The published numbers of one table, long: model, task, metric, value, split, source."""
    frame = pd.read_csv(CONFIGS / "published_scores.csv")
    return frame[frame["table"] == table].reset_index(drop=True)


def published_for_task(published: pd.DataFrame, task: Task) -> pd.DataFrame:
    """One row per published model, one column per metric of `task` (empty if none published)."""
    mine = published[published["task"] == task.name]
    return mine.pivot_table(index="model", columns="metric", values="value", sort=False)


def mean_sd(values: list[float]) -> str:
    """`mean ± sd` over seeds (sample sd), or the single value."""
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def summarise(records: list[dict]) -> pd.DataFrame:
    """One row per (task, profile, model, data source, metric), the values of all seeds."""
    rows = []
    for record in records:
        if record.get("status") != "succeeded":
            continue
        for key, value in record["metrics"].items():
            rows.append(
                {
                    "task": record["task"],
                    "profile": record["profile"],
                    "model": record["model"],
                    "data_source": record["data_source"],
                    "config": record.get("config", "default"),
                    "metric": key,
                    "seed": record["seed"],
                    "value": value,
                }
            )
    columns = ["task", "profile", "model", "data_source", "config", "metric", "seed", "value"]
    return pd.DataFrame(rows, columns=columns)


def task_table(task: Task, runs: pd.DataFrame, published: pd.DataFrame) -> str:
    """Markdown table of one task: reproduced rows, then the published test-set rows."""
    labels = {m.key: m.label for m in task.metrics}
    header = ["model", "configuration", "profile", "split", "seeds", *labels.values()]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    mine = runs[runs["task"] == task.name]
    groups = mine.groupby(["profile", "model", "data_source", "config"])
    for (profile, model, source, config), group in groups:
        cells = [
            f"`{model}`",
            "default (the profile's recipe)" if config == "default" else f"`{config}`",
            f"{profile} ({PROFILE_NOTES[profile]})",
            SOURCE_SPLITS[source],
            str(group["seed"].nunique()),
        ]
        for key in labels:
            values = group.loc[group["metric"] == key, "value"].dropna().tolist()
            cells.append(mean_sd(values) if values else "—")
        lines.append("| " + " | ".join(cells) + " |")
    for model, row in published_for_task(published, task).iterrows():
        cells = [f"{model} (published)", "—", "KLUE paper recipe", "test (private)", "—"]
        cells += [f"{row[key]:.2f}" if key in row and pd.notna(row[key]) else "—" for key in labels]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def published_for_models(published: pd.DataFrame, models: set[str]) -> pd.DataFrame:
    """The published rows of the KLUE checkpoints, plus those of any reproduced model."""
    released = {e["published"] for e in registered_models().values() if "published" in e}
    names = released | {model_entry(m).get("published") for m in models}
    return published[published["model"].isin(names)]


def render(records: list[dict]) -> tuple[str, pd.DataFrame]:
    """The results page body (Markdown) and the long-format CSV frame."""
    runs = summarise(records)
    published = published_scores()
    source = published["source"].iloc[0] if len(published) else "none recorded"
    parts = [
        "Reproduced numbers are **dev-set** scores of the best-on-dev checkpoint, as mean ± "
        "sample standard deviation over seeds. Published numbers are the KLUE README's "
        f"**test-set** scores ({source}); the test set is private, so the two are not directly "
        "comparable — read the gap, not the ranking.",
    ]
    tasks = [t for t in all_tasks().values() if t.name in set(runs["task"])]
    for task in tasks:
        chosen = published_for_models(published, set(runs.loc[runs["task"] == task.name, "model"]))
        parts.append(f"## {task.title}\n\n{task_table(task, runs, chosen)}")
    if not tasks:
        parts.append("No run has finished yet: run `kluebook run` first.")
    failed = [r for r in records if r.get("status") == "failed"]
    if failed:
        items = "\n".join(
            f"- {r['task']} · `{r['model']}` · {r['profile']} · seed {r['seed']}: {r['error']}"
            for r in failed
        )
        parts.append(f"## Failed runs\n\nThese runs failed; they are not in the tables.\n\n{items}")
    keys = ["task", "profile", "model", "data_source", "config", "metric"]
    frame = runs.groupby(keys, as_index=False).agg(
        seeds=("seed", "nunique"), mean=("value", "mean"), sd=("value", "std")
    )
    frame.insert(5, "split", frame["data_source"].map(SOURCE_SPLITS))
    return "\n\n".join(parts) + "\n", frame


def render_status(records: list[dict]) -> str:
    """The execution table: every run, its outcome, duration, machine and code version."""
    if not records:
        return "No run recorded yet.\n"
    lines = [
        "| task | model | profile | seed | status | wall time (s) | finished | device | commit |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(records, key=lambda r: (r["task"], r["profile"], r["model"], r["seed"])):
        commit = (r.get("git_commit") or "unknown")[:12]
        lines.append(
            f"| {r['task']} | `{r['model']}` | {r['profile']} | {r['seed']} | {r['status']} | "
            f"{r.get('wall_time_s', '—')} | {r.get('finished_at', '—')} | {r.get('device', '—')} | "
            f"`{commit}` |"
        )
    newest = max(
        (r for r in records if "libraries" in r), key=lambda r: r["finished_at"], default=None
    )
    if newest:
        versions = ", ".join(f"{k} {v}" for k, v in newest["libraries"].items())
        lines.append(f"\nLibrary versions of the most recent run: {versions}.")
    return "\n".join(lines) + "\n"


def results_figure(runs: pd.DataFrame, path: Path) -> None:
    """One panel per task: every seed's dev score as a dot, published test scores as crosses."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    published = published_scores()
    tasks = [t for t in all_tasks().values() if t.name in set(runs["task"])]
    columns = min(4, max(1, len(tasks)))
    rows = max(1, math.ceil(len(tasks) / columns))
    fig, axes = plt.subplots(
        rows, columns, figsize=(3.4 * columns, 3.0 * rows + 0.6), squeeze=False
    )
    axes = axes.ravel()
    for ax in axes[len(tasks) :]:
        ax.axis("off")
    for ax, task in zip(axes, tasks, strict=False):
        keys = [m.key for m in task.metrics]
        mine = runs[runs["task"] == task.name]
        for (profile, model, config), group in mine.groupby(["profile", "model", "config"]):
            xs = [keys.index(k) for k in group["metric"] if k in keys]
            ax.scatter(
                xs,
                group.loc[group["metric"].isin(keys), "value"],
                alpha=0.7,
                label=f"{model} ({profile}{'' if config == 'default' else ', ' + config}, dev)",
            )
        theirs = published_for_task(published, task)
        for x, key in enumerate(keys):
            column = theirs[key] if key in theirs else pd.Series(dtype=float)
            ax.scatter(
                [x] * len(column),
                column,
                marker="x",
                color="black",
                alpha=0.5,
                label="published (test)" if x == 0 else None,
            )
        ax.set_xticks(range(len(keys)), [m.label for m in task.metrics])
        ax.set_xlim(-0.6, len(keys) - 0.4)
        ax.set_title(task.title, fontsize=9)
        ax.set_ylim(0, 100)
    if not tasks:
        axes[0].text(0.5, 0.5, "no runs yet", ha="center", va="center")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="lower center",
        ncol=3,
        bbox_to_anchor=(0.5, -0.02),
        fontsize=8,
        frameon=False,
    )
    fig.tight_layout(rect=(0, 0.6 / (3.0 * rows + 0.6), 1, 1))
    image = io.BytesIO()
    fig.savefig(image, dpi=110, format="png")
    plt.close(fig)
    if not path.is_file() or path.read_bytes() != image.getvalue():  # unchanged: left as it is
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(f".{path.name}.tmp")
        staging.write_bytes(image.getvalue())
        os.replace(staging, path)


def write_report(out_dir: Path = GENERATED, results: Path = RESULTS) -> list[Path]:
    """Write results.md, results.csv, results.png and status.md for the book."""
    records = load_records(results)
    markdown, frame = render(records)
    paths = [out_dir / n for n in ("results.md", "results.csv", "results.png", "status.md")]
    write_text_if_changed(paths[0], markdown)
    write_text_if_changed(paths[1], frame.round(4).to_csv(index=False))
    results_figure(summarise(records), paths[2])
    write_text_if_changed(paths[3], render_status(records))
    return paths
