"""The results as files to download: results.csv (long), results.json (runs, aggregates,
published, submitted numbers) and the section of the results page that offers them with the
model-index snippets and each run's dev items (`kluebook.book.run_items`)."""

from pathlib import Path

import pandas as pd

from kluebook.book import myst
from kluebook.book.run_items import download_links
from kluebook.common.paths import GENERATED, ROOT
from kluebook.recording.records import RunRecord
from kluebook.results.aggregation import (
    Row,
    model_order,
    published_scores,
    record_order,
    record_split,
    reproduced_rows,
)
from kluebook.results.links import run_page
from kluebook.results.pooling import code_today, stale_reason
from kluebook.training.checkpoints import model_slug


def run_downloads(records: list[RunRecord], root: Path = ROOT) -> str:
    """A list of the runs whose dev items can be downloaded, each with its files."""
    lines = []
    for record in sorted(records, key=record_order):
        links = download_links(record, root) if run_page(record, root) else ""
        if links and record.status == "succeeded":
            lines.append(
                f"- {myst.text(record.task)} · {myst.code(record.model)} · "
                f"{myst.text(record.profile)} · {myst.text(record.config)} · "
                f"seed {record.seed}: {links}"
            )
    if not lines:
        return ""
    return (
        "\nEach run's dev items (text, gold, prediction, whether they agree, confidence) and "
        "its record; the run's page browses them.\n\n"
        ":::{dropdown} The dev items of each run\n" + "\n".join(lines) + "\n:::\n"
    )


def downloads_markdown(
    rows: list[Row], records: list[RunRecord] = (), root: Path = ROOT, submitted: list = ()
) -> str:
    """The downloads section: CSV, JSON, each run's dev items (`records`) and one model-index
    snippet per reproduced model and per submission (`submitted`: their rows)."""
    generated = "/" + GENERATED.relative_to(ROOT).as_posix()
    text = (
        "## Downloads\n\n"
        f"- {{download}}`results.csv <{generated}/results.csv>`: long format, one row per run "
        "and metric (`kind` run), per configuration and metric (`kind` aggregate: its seeds, "
        "mean, sd and 95% bootstrap interval `ci_low`-`ci_high`; runs carry theirs too) and "
        "per published number (`kind` published, with its split and source) and per submitted "
        "number (`kind` submission: recomputed from its predictions, with its interval, the "
        "submission's slug as `source` and its page).\n"
        f"- {{download}}`results.json <{generated}/results.json>`: the same, as `runs` (one "
        "object per run, failed ones too, with its metrics and page), `aggregates`, "
        "`published` and `submissions` (each number with its interval, corrected values, the "
        "SHA-256 of its predictions and gold, and the submission's declarations).\n"
    )
    text += run_downloads(list(records), root)
    text += submission_snippets(submitted, generated)
    models = sorted({r.model for r in rows}, key=model_order)
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
            f"\n:::{{dropdown}} {myst.text(model)}\n"
            f"{{download}}`{name} <{generated}/model-index/{name}>`\n\n"
            f"```{{literalinclude}} {generated}/model-index/{name}\n:language: yaml\n```\n:::\n"
        )
    return text


def submission_snippets(submitted: list, generated: str) -> str:
    """The model-index snippet of each submission (`model_index.SUBMISSIONS_FOLDER`)."""
    if not submitted:
        return ""
    text = (
        "\nA Hugging Face model-index for each submission, its numbers recomputed from its "
        "predictions: paste it into the YAML header of the model's card.\n"
    )
    for row in submitted:
        name = f"submissions/{row.source}.yaml"
        text += (
            f"\n:::{{dropdown}} {myst.text(row.label)} (submitted)\n"
            f"{{download}}`{row.source}.yaml <{generated}/model-index/{name}>`\n\n"
            f"```{{literalinclude}} {generated}/model-index/{name}\n:language: yaml\n```\n:::\n"
        )
    return text


def submission_numbers(submitted: list) -> list[dict]:
    """The `submissions` of results.json: one object per submitted number (`submitted`: the
    rows of `kluebook.book.submitted`), with what it was derived from."""
    out = []
    for row in submitted:
        for (task, metric), cell in sorted(row.cells.items()):
            scores = row.record.tasks[task]
            out.append(
                {
                    "submission": row.source,
                    "model": row.label,
                    "task": task,
                    "metric": metric,
                    "split": row.split,
                    "value": round(cell.mean, 4),
                    **_interval_columns(cell.interval and cell.interval.model_dump()),
                    "corrected": {
                        erratum: values[metric]
                        for erratum, values in sorted(scores.corrected.items())
                        if metric in values
                    },
                    "above_published_dev": (task, metric) in row.above_dev,
                    "dev_data_used": row.dev_data_used,
                    "method": row.submission.method,
                    "parameters": row.submission.parameters,
                    "predictions_sha256": scores.predictions_sha256,
                    "gold_sha256": scores.gold_sha256,
                    "gold_official": scores.gold_official,
                    "kluebook_version": scores.kluebook_version,
                    "errata_version": scores.errata_version,
                    "page": f"{row.page}.html",
                }
            )
    return out


def run_rows(records: list[RunRecord], root: Path = ROOT) -> list[dict]:
    """The per-run objects of results.json (failed runs included): fields of each record as
    its file holds them."""
    keep = (
        "task",
        "profile",
        "model",
        "data_source",
        "config",
        "seed",
        "status",
        "metrics",
        "intervals",
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
    today = code_today(records)
    runs = []
    for record in sorted(records, key=record_order):
        written = record.as_dict()
        row = {k: written[k] for k in keep if k in written}
        row["split"] = record_split(record)
        page = run_page(record, root)
        row["page"] = f"{page}.html" if page else None
        row["stale"] = stale_reason(record, today) or None
        runs.append(row)
    return runs


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
                    **_interval_columns(cell.interval and cell.interval.model_dump()),
                    "pages": [f"{p}.html" for _, p in cell.runs if p],
                    "stale": cell.stale or None,  # the inputs changed since these runs
                    "not_pooled": cell.not_pooled,
                }
            )
    return out


def _interval_columns(interval: dict | None) -> dict:
    """A 95% bootstrap interval (as results.json holds it), or None, None."""
    return {"ci_low": (interval or {}).get("low"), "ci_high": (interval or {}).get("high")}


def published_records(published: pd.DataFrame) -> list[dict]:
    return [
        {k: getattr(r, k) for k in ("model", "task", "metric", "value", "split", "source")}
        for r in published.itertuples()
    ]


def downloads(
    records: list[RunRecord], root: Path = ROOT, submitted: list = ()
) -> tuple[pd.DataFrame, dict]:
    """results.csv (long) and results.json (runs, aggregates, published, and the submitted
    numbers: `submitted`, the rows of `kluebook.book.submitted`)."""
    rows = reproduced_rows(records, root)
    published = published_scores()
    data = {
        "schema": 1,
        "runs": run_rows(records, root),
        "aggregates": aggregate_rows(rows),
        "published": published_records(published),
        "submissions": submission_numbers(submitted),
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
                    **_interval_columns((run.get("intervals") or {}).get(metric)),
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
                "ci_low": agg["ci_low"],
                "ci_high": agg["ci_high"],
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
    for number in data["submissions"]:
        flat.append(
            {
                "kind": "submission",
                **{k: number[k] for k in ("task", "model", "split", "metric", "value")},
                "seeds": 1,
                "ci_low": number["ci_low"],
                "ci_high": number["ci_high"],
                "page": number["page"],
                "source": number["submission"],
            }
        )
    names = ["kind", "task", "metric", "profile", "model", "config", "data_source", "split"]
    names += ["seed", "seeds", "value", "sd", "ci_low", "ci_high", "status", "page", "source"]
    frame = pd.DataFrame(flat, columns=names)
    frame["seed"] = frame["seed"].astype("Int64")
    frame["seeds"] = frame["seeds"].astype("Int64")
    return frame, data
