"""Hugging Face model-index snippets of the reproduced results, ready to paste into the YAML
header of a model card. They are made with `huggingface_hub`'s model-card types, so they have
the schema the hub reads."""

from pathlib import Path

from huggingface_hub import EvalResult, ModelCardData

from kluebook.book.klue_table import short_name
from kluebook.book.myst import one_line
from kluebook.common.json_files import write_text_if_changed
from kluebook.results.aggregation import method_text
from kluebook.tasks import all_tasks
from kluebook.training.checkpoints import model_slug

DATASETS = {
    # data source: (dataset id, split, how the data set is named)
    "official": ("klue/klue", "validation", "official KLUE v1.1 dev files"),
    "hub": ("klue/klue", "validation", "klue/klue validation split (v1)"),
    "generated": ("kluebook-smoke", "dev", "generated smoke data, a pipeline check, not KLUE"),
}


def eval_results(rows) -> list[EvalResult]:
    """One `EvalResult` per (configuration, task, metric) of a model's reproduced rows."""
    tasks = all_tasks()
    results = []
    for row in rows:
        dataset, split, described = DATASETS.get(
            row.data_source, (row.data_source, "dev", row.data_source)
        )
        label = method_text(row.method, row.shots)
        made = f", {label}" if label else ""
        for task in tasks.values():
            for metric in task.metrics:
                cell = row.cells.get((task.name, metric.key))
                if cell is None:
                    continue
                seeds = len(cell.values)
                results.append(
                    EvalResult(
                        task_type=task.hub_task_type,
                        task_name=task.title,
                        dataset_type=dataset,
                        dataset_name=f"KLUE {short_name(task)}: {described}",
                        dataset_config=task.hub_config,
                        dataset_split=split,
                        metric_type=metric.key,
                        metric_name=f"{metric.label} (dev mean of {seeds} seed"
                        f"{'s' if seeds > 1 else ''}, {row.profile} profile{made})",
                        metric_value=round(cell.mean, 2),
                        metric_config=None if row.is_default_config else row.config,
                    )
                )
    return results


def snippet(model: str, rows) -> str:
    """The YAML of one model's model-index, with a comment saying what it holds."""
    card = ModelCardData(
        model_name=model,
        language="ko",
        datasets=["klue/klue"] if any(r.data_source != "generated" for r in rows) else None,
        eval_results=eval_results(rows),
    )
    smoke = any(r.profile == "smoke" for r in rows)
    warning = (
        "# Smoke rows are a pipeline check on generated data: do not publish them as KLUE scores.\n"
        if smoke
        else ""
    )
    return (
        f"# model-index of {one_line(model)}, from kluebook's run records (dev-set means over "
        "seeds).\n"
        "# Paste it into the YAML header of the model card (between the --- lines).\n"
        f"{warning}{card.to_yaml()}\n"
    )


# Where the submissions' snippets are, under the model-index folder (apart from the runs').
SUBMISSIONS_FOLDER = "submissions"


def submission_snippet(row) -> str:
    """The YAML of one submission's model-index (`row`: its row, `kluebook.book.submitted`):
    each task metric it has, recomputed from its predictions on the official dev files."""
    tasks = all_tasks()
    results = [
        EvalResult(
            task_type=tasks[task].hub_task_type,
            task_name=tasks[task].title,
            dataset_type="klue/klue",
            dataset_name=f"KLUE {short_name(tasks[task])}: official KLUE v1.1 dev files",
            dataset_config=tasks[task].hub_config,
            dataset_split="validation",
            metric_type=metric,
            metric_name=f"{next(m.label for m in tasks[task].metrics if m.key == metric)} "
            "(recomputed from the submitted predictions by kluebook)",
            metric_value=round(cell.mean, 2),
        )
        for (task, metric), cell in sorted(row.cells.items())
    ]
    card = ModelCardData(
        model_name=one_line(row.label), language="ko", datasets=["klue/klue"], eval_results=results
    )
    return (
        f"# model-index of the submission {one_line(row.source)}, its numbers recomputed from "
        "its dev predictions by kluebook.\n"
        "# Paste it into the YAML header of the model card (between the --- lines).\n"
        f"{card.to_yaml()}\n"
    )


def write_model_index(rows, out_dir: Path, submitted=()) -> list[Path]:
    """Write one snippet per model with reproduced rows and one per submission (`submitted`:
    their rows); return their paths."""
    by_model: dict[str, list] = {}
    for row in rows:
        by_model.setdefault(row.model, []).append(row)
    paths = []
    for stale in out_dir.glob("*.yaml") if out_dir.is_dir() else []:
        stale.unlink()  # a model whose records are gone
    for model, mine in by_model.items():
        path = out_dir / f"{model_slug(model)}.yaml"
        write_text_if_changed(path, snippet(model, mine))
        paths.append(path)
    folder = out_dir / SUBMISSIONS_FOLDER
    for stale in folder.glob("*.yaml") if folder.is_dir() else []:
        stale.unlink()  # a submission no longer shown
    for row in submitted:
        path = folder / f"{row.source}.yaml"
        write_text_if_changed(path, submission_snippet(row))
        paths.append(path)
    return paths
