"""What every task notebook does around its lesson: set a run up from its parameters, then
write its predictions and its run record."""

import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import AutoConfig

from kluebook import records
from kluebook.data import data_checksum, data_dir_for, load_split
from kluebook.errors import KluebookError
from kluebook.jsonio import write_jsonl
from kluebook.modeling import TINY_MODEL
from kluebook.tasks import Task, get_task
from kluebook.training import Recipe, resolve_recipe

RECIPE_PARAMETERS = ("learning_rate", "batch_size", "epochs", "warmup_ratio", "max_length")


@dataclass
class Run:
    """One execution of a task notebook: its task, parameters, recipe and outputs."""

    task: Task
    parameters: dict
    recipe: Recipe
    data_dir: Path | None
    output_dir: Path
    record_path: Path
    started: float = field(default_factory=time.time)
    started_at: str = field(default_factory=records.now)

    @property
    def model(self) -> str:
        return self.parameters["model"]

    def load(self, split: str) -> list[dict]:
        """A split's records, cut to the `<split>_limit` parameter when one is set."""
        rows = load_split(self.task, split, self.parameters["data_source"], self.data_dir)
        limit = self.parameters.get(f"{split}_limit") or 0
        return rows[:limit] if limit else rows


def start_run(task_name: str, parameters: dict) -> Run:
    """Check the parameters, resolve the recipe and data, and seed every random generator."""
    task = get_task(task_name)
    profile, source = parameters["profile"], parameters["data_source"]
    if profile == "paper" and source == "generated":
        raise KluebookError("the paper profile needs real data: data_source 'official' or 'hub'")
    recipe = resolve_recipe(
        task, parameters["model"], profile, {k: parameters.get(k) for k in RECIPE_PARAMETERS}
    )
    data_dir = data_dir_for(task, source, parameters.get("data_dir") or None)
    output_dir = Path(parameters["output_dir"])
    output_dir.mkdir(parents=True, exist_ok=True)
    seed_everything(parameters["seed"])
    transformers.logging.set_verbosity_error()
    return Run(
        task=task,
        parameters=dict(parameters),
        recipe=recipe,
        data_dir=data_dir,
        output_dir=output_dir,
        record_path=Path(parameters.get("record_path") or output_dir / "record.json"),
    )


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def model_revision(model: str, checkpoint: str) -> str:
    """The hub commit of a checkpoint, or where a local one came from."""
    if model == TINY_MODEL:
        return f"built locally: {Path(checkpoint).name}"
    if Path(model).exists():
        return f"local path: {Path(model).resolve()}"
    return getattr(AutoConfig.from_pretrained(model), "_commit_hash", None) or "unknown"


def finish_run(
    run: Run,
    checkpoint: str,
    metrics: dict,
    best: dict,
    last: dict,
    counts: dict,
    predictions: list[dict],
) -> dict:
    """Write the predictions (SCORING.md format) and the run record; return the record."""
    predictions_path = run.record_path.with_suffix(".predictions.jsonl")
    write_jsonl(predictions_path, predictions)
    record = {
        "task": run.task.name,
        "task_version": run.task.version,
        "model": run.model,
        "model_revision": model_revision(run.model, checkpoint),
        "profile": run.parameters["profile"],
        "seed": run.parameters["seed"],
        "parameters": run.parameters,
        "recipe": run.recipe.as_dict(),
        "metrics": metrics,
        "best_checkpoint": best,
        "last_checkpoint": last,
        "counts": counts,
        "data_source": run.parameters["data_source"],
        "data_checksum": data_checksum(run.task, run.parameters["data_source"], run.data_dir),
        "predictions": str(predictions_path),
        "git_commit": records.git_commit(),
        "libraries": records.library_versions(),
        "device": records.device_description(),
        "started_at": run.started_at,
        "finished_at": records.now(),
        "wall_time_s": round(time.time() - run.started, 1),
        "status": "succeeded",
    }
    records.write_record(run.record_path, record)
    return record
