"""What every task notebook does around its lesson: set a run up from its parameters, then
score its predictions and write them, with the run's outcome, to its output folder (the prompted
notebook's own steps: `kluebook.notebook.prompted_steps`).

The runner turns that outcome into the run record (`kluebook.recording.records`); a notebook run by
hand leaves `outcome.json` and `predictions.jsonl` in its `output_dir`.
"""

import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import transformers
from transformers import AutoConfig

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_json, write_jsonl
from kluebook.data.loading import (
    data_checksum,
    data_dir_for,
    file_sha256,
    hub_dataset_revision,
    load_split,
)
from kluebook.errata.corrections import corrected_items, corrected_values
from kluebook.errata.manifest import manifest
from kluebook.methods.fine_tuned import RECIPE_PARAMETERS, FineTunedParameters
from kluebook.methods.interface import RunSettings
from kluebook.recording import provenance, records
from kluebook.scoring.bootstrap import run_intervals
from kluebook.scoring.predictions import NO_SWITCHES, score_predictions
from kluebook.tasks import Task, get_task
from kluebook.training import checkpoints, devices
from kluebook.training.recipes import Recipe, recipe_parameters, resolve_recipe
from kluebook.training.speed import deviations
from kluebook.training.tiny_model import TINY_MODEL

# The parameters every task notebook declares in its `parameters` cell.
COMMON_PARAMETERS = FineTunedParameters.names()
# What a run is pinned to on the hub: set by the runner (resolved to commits) or, in a notebook
# run by hand, resolved here; "" for a local model or local data.
REVISION_PARAMETERS = RunSettings.revision_names()


@dataclass
class Run:
    """One execution of a task notebook: its task, parameters, recipe and outputs."""

    task: Task
    parameters: dict
    recipe: Recipe | None  # None for a prompted run, which trains nothing
    data_dir: Path | None
    output_dir: Path
    started: float = field(default_factory=time.time)
    started_at: str = field(default_factory=records.now)
    errata_applied: list[str] = field(default_factory=list)  # data errata applied to dev

    @property
    def model(self) -> str:
        return self.parameters["model"]

    def load(self, split: str) -> list[dict]:
        """A split's records, cut to the `<split>_limit` parameter when one is set; the dev
        split with the data errata applied when the run asks for them (`errata`)."""
        rows = load_split(
            self.task,
            split,
            self.parameters["data_source"],
            self.data_dir,
            self.parameters["data_revision"],
        )
        version = self.parameters.get("errata") or ""
        if version and split == "dev":
            rows, self.errata_applied = corrected_items(
                self.task, rows, self.file_sha256("dev"), version
            )
        limit = self.parameters.get(f"{split}_limit") or 0
        return rows[:limit] if limit else rows

    def file_sha256(self, split: str) -> str | None:
        """The SHA-256 of the split's official file (None for hub or generated data)."""
        if self.parameters["data_source"] != "official" or self.data_dir is None:
            return None
        return file_sha256(self.data_dir / self.task.files[split])

    def score(self, gold: list[dict], predictions: list[dict]) -> dict:
        """The official metrics of prediction lines, computed as `kluebook score` computes them
        with this run's switches (`--set name=value` for each of the task's own)."""
        return score_predictions(self.task, gold, predictions, self.switches)

    @property
    def switches(self) -> dict:
        return self.recipe.switches() if self.recipe else NO_SWITCHES


def start_run(task_name: str, namespace: dict) -> Run:
    """Check the parameters, resolve the recipe and data, and seed every random generator.

    `namespace` is the notebook's `globals()`: the common parameters are read from it.
    """
    devices.keep_one_gpu()  # before CUDA starts: the Trainer would use every GPU it sees
    task = get_task(task_name)
    missing = [name for name in COMMON_PARAMETERS if name not in namespace]
    if missing:
        raise KluebookError(f"the notebook does not declare the parameters {', '.join(missing)}")
    parameters = {name: namespace[name] for name in COMMON_PARAMETERS}
    # Recipe fields a notebook may leave undeclared: the runner injects them only when a run sets
    # them (`--set bf16=true`, `--set micro_batches=4`), and they are read here.
    switches = recipe_parameters(task)
    parameters.update({name: namespace[name] for name in switches if name in namespace})
    read_errata(parameters, namespace)
    profile, source = parameters["profile"], parameters["data_source"]
    resolve_revisions(task, parameters, namespace)
    if profile == "paper" and source == "generated":
        raise KluebookError("the paper profile needs real data: data_source 'official' or 'hub'")
    recipe = resolve_recipe(
        task,
        parameters["model"],
        profile,
        {k: parameters.get(k) for k in (*RECIPE_PARAMETERS, *switches)},
    )
    data_dir = data_dir_for(task, source, parameters.get("data_dir") or None)
    output_dir = Path(parameters["output_dir"])
    output_dir.mkdir(parents=True, exist_ok=True)
    seed_everything(parameters["seed"])
    transformers.logging.set_verbosity_error()
    set_display_options()
    return Run(
        task=task,
        parameters=dict(parameters),
        recipe=recipe,
        data_dir=data_dir,
        output_dir=output_dir,
    )


def read_errata(parameters: dict, namespace: dict) -> None:
    """The errata version a run asks for (`--set errata=<version>`: its dev items corrected),
    which only the official files can take."""
    version = namespace.get("errata") or ""
    if version and parameters["data_source"] != "official":
        raise KluebookError("errata correct the official files: --data-source official")
    if version:
        parameters["errata"] = version


def set_display_options() -> None:
    """Printed DataFrames keep their columns aligned when cells hold Korean (wide characters)."""
    pd.set_option("display.unicode.east_asian_width", True)


def resolve_revisions(task: Task, parameters: dict, namespace: dict) -> None:
    """Resolve the run's hub model and data revisions to commits (a commit given by the runner
    is taken as it is: the hub is not asked again) and load the model at that commit."""
    model = parameters["model"]
    asked = {name: namespace.get(name) or "" for name in REVISION_PARAMETERS}
    parameters["model_revision"] = checkpoints.check_model(model, asked["model_revision"])
    if parameters["model_revision"]:
        checkpoints.pin(model, parameters["model_revision"])
    parameters["data_revision"] = (
        hub_dataset_revision(task, asked["data_revision"])
        if parameters["data_source"] == "hub"
        else ""
    )


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def peak_memory() -> dict:
    """The largest resident set of this process so far, in MB, and on a GPU the most memory
    PyTorch allocated there (resident memory is not measured where `resource` is missing)."""
    peaks = {}
    try:
        import resource  # optional: Unix only
    except ImportError:  # Windows
        pass
    else:
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux, bytes on macOS
        peaks["peak_memory_mb"] = round(maxrss / (2**20 if sys.platform == "darwin" else 2**10), 1)
    if torch.cuda.is_available():
        peaks["peak_gpu_memory_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    return peaks


def model_revision(model: str, checkpoint: str) -> str:
    """The hub commit of a checkpoint, or where a local one came from."""
    if model == TINY_MODEL:
        return f"built locally: {Path(checkpoint).name}"
    if checkpoints.local_model(model) is not None:
        return f"local folder: {checkpoints.model_id(model)}"
    pinned = checkpoints.pinned_revision(model)
    return pinned or getattr(AutoConfig.from_pretrained(model), "_commit_hash", None) or "unknown"


def finish_run(
    run: Run,
    checkpoint: str,
    gold: list[dict],
    predictions: list[dict],
    best: dict,
    last: dict,
    counts: dict,
) -> dict:
    """Score the dev predictions, write them and the run's outcome to `output_dir`; return it.

    The metrics are those `kluebook score` gives for the predictions file written here, each
    with its bootstrap interval over the dev set (`kluebook.scoring.bootstrap`). The
    throughput is the training examples seen (train count x epochs) over the notebook's wall
    time so far, loading and evaluation included: a lower bound on the training speed.
    """
    seen = counts.get("train", 0) * run.recipe.as_dict().get("epochs", 0)
    facts = {
        "model_revision": model_revision(run.model, checkpoint),
        "recipe": run.recipe.as_dict(),
        "deviations": deviations(run.recipe),
        "best_checkpoint": best,
        "last_checkpoint": last,
    }
    return write_outcome(run, gold, predictions, counts, facts, seen)


def write_outcome(
    run: Run, gold: list[dict], predictions: list[dict], counts: dict, facts: dict, seen: float = 0
) -> dict:
    """Score the predictions, write them and the run's outcome (its `facts`, then what every
    run measures) to `output_dir`; return the outcome."""
    write_jsonl(run.output_dir / records.PREDICTIONS_FILE, predictions)
    metrics = run.score(gold, predictions)
    wall_time = time.time() - run.started
    outcome = {
        **facts,
        "metrics": metrics,
        # intervals, bootstrap
        **run_intervals(run.task, gold, predictions, metrics, run.switches),
        "counts": counts,
        "data_checksum": data_checksum(
            run.task, run.parameters["data_source"], run.data_dir, run.parameters["data_revision"]
        ),
        "errata": {
            "version": manifest().version,
            "applied": run.errata_applied,
            "corrected": corrected_values(
                run.task,
                gold,
                predictions,
                metrics,
                run.file_sha256("dev"),
                run.errata_applied,
                run.switches,
            ),
        },
        "libraries": provenance.library_versions(),
        "device": provenance.device_description(),
        "devices": devices.run_devices(),
        "started_at": run.started_at,
        "notebook_wall_time_s": round(wall_time, 1),
        # CPU seconds of the kernel so far, its imports included (those a forked kernel found
        # made, `kluebook.running.warm_kernels`, excepted): what a run costs, whatever else the
        # machine was doing (wall times stretch on a busy machine, this hardly does).
        "kernel_cpu_s": round(time.process_time(), 1),
        "train_examples_per_second": (
            round(seen / wall_time, 1) if run.recipe and wall_time > 0 else None
        ),
        **peak_memory(),
    }
    write_json(run.output_dir / records.OUTCOME_FILE, outcome)
    return outcome
