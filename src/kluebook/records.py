"""Run records: one JSON file per (task, profile, model, seed), the data behind every table.

`run_record` is the one place a record is made, for a run that succeeded and one that failed.
"""

import hashlib
import json
import platform
import subprocess
import time
import traceback
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, distribution, version
from pathlib import Path

from kluebook import __version__
from kluebook.errors import KluebookError
from kluebook.json_files import read_json, write_json
from kluebook.paths import CHECKOUT, RESULTS, scrub

RECORD_SCHEMA = 1
# What a notebook leaves in its output folder for the runner to turn into the record.
OUTCOME_FILE = "outcome.json"
PREDICTIONS_FILE = "predictions.jsonl"
LIBRARIES = (
    "torch",
    "transformers",
    "datasets",
    "tokenizers",
    "scikit-learn",
    "numpy",
    "papermill",
)


def model_slug(model: str) -> str:
    """A file-name-safe form of a model id or path: `klue/roberta-base` -> `klue--roberta-base`."""
    return model.strip("/").replace("/", "--").replace(" ", "_")


def git_commit() -> str | None:
    """The commit of the code that runs: the checkout's, suffixed `-dirty` when tracked files
    have changed, or for a package installed from git, the commit pip recorded; else None."""
    if CHECKOUT is None:
        return installed_commit()
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=CHECKOUT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=CHECKOUT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("-dirty" if dirty else "")


def installed_commit() -> str | None:
    """The commit an installed package was built from, when pip installed it from git."""
    try:
        direct_url = distribution("kluebook").read_text("direct_url.json")
        return json.loads(direct_url or "{}").get("vcs_info", {}).get("commit_id")
    except (PackageNotFoundError, json.JSONDecodeError, AttributeError):
        return None


def library_versions() -> dict[str, str]:
    versions = {"python": platform.python_version(), "kluebook": __version__}
    for name in LIBRARIES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def device_description() -> str:
    import torch

    if torch.cuda.is_available():
        return f"cuda: {torch.cuda.get_device_name(0)}"
    return f"cpu: {platform.machine()}, {torch.get_num_threads()} threads"


# The shared modules a run's numbers depend on; report, plots, book and CLI code are not here,
# so changing them re-executes nothing.
RUN_CODE = (
    "bootstrap.py",
    "checkpoints.py",
    "data.py",
    "json_files.py",
    "klue_tsv.py",
    "notebook.py",
    "official_trainer.py",
    "recipes.py",
    "scoring.py",
    "speed.py",
    "tiny_model.py",
    "training.py",
)


def run_code_hash(task) -> str:
    """A hash of the code a run of `task` executes: the shared run modules, the task's folder
    (its code and task.yaml, which holds its version) and the package version."""
    package = Path(__file__).parent
    files = [(f"kluebook/{name}", package / name) for name in RUN_CODE]
    files += [
        (f"task/{path.relative_to(task.folder).as_posix()}", path)
        for path in sorted(task.folder.rglob("*"))
        if path.suffix in {".py", ".yaml"}
    ]
    digest = hashlib.sha256(__version__.encode())
    for name, path in files:
        digest.update(name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def fingerprint(notebook_code: str, parameters: dict, data_checksum: str, code: str) -> str:
    """What must be unchanged for a finished run to be reused: the notebook, the parameters,
    the data and the code the run executes (`run_code_hash`)."""
    payload = json.dumps(
        {"notebook": notebook_code, "parameters": parameters, "data": data_checksum, "code": code},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def read_record(path: str | Path) -> dict | None:
    """A record, or None if there is none (a corrupt file also counts as none)."""
    try:
        return read_json(path)
    except KluebookError:
        return None


def load_records(results: Path = RESULTS) -> list[dict]:
    """Every readable record under results/."""
    found = (read_record(path) for path in sorted(results.rglob("*.json")))
    return [r for r in found if r is not None and "task" in r]


def write_record(path: str | Path, record: dict) -> None:
    """Write a record atomically, stamped with the schema version."""
    write_json(path, {"schema": RECORD_SCHEMA, **record})


def describe_error(error: BaseException) -> tuple[str, str]:
    """The one-line error and the short traceback that a failed run's record keeps, without
    the paths of this machine (the record may be committed and published)."""
    lines = str(error).strip().splitlines()
    return (
        scrub(f"{type(error).__name__}: {lines[-1] if lines else ''}"),
        scrub("".join(traceback.format_exception(error, limit=5))),
    )


def run_record(
    task,
    parameters: dict,
    fingerprint: str,
    started: float,
    outcome: dict | None = None,
    error: BaseException | None = None,
    failure: tuple[str, str] | None = None,
    **files: str,
) -> dict:
    """The record of one run: what ran and where, then its `outcome` (the notebook's metrics,
    checkpoints, counts, environment) or, for a failed run, its `error` and no metrics.

    A run that failed elsewhere (on a Dask worker) gives its `failure` instead of the exception:
    the one-line error and the traceback, as `describe_error` wrote them.
    `files` are the run's files (executed notebook, predictions) relative to the book root.
    """
    record = {
        "task": task.name,
        "task_version": task.version,
        "model": parameters["model"],
        "profile": parameters["profile"],
        "seed": parameters["seed"],
        "data_source": parameters["data_source"],
        "parameters": parameters,
        "fingerprint": fingerprint,
        "git_commit": git_commit(),
        "finished_at": now(),
        "wall_time_s": round(time.time() - started, 1),
    }
    if error is None and failure is None:
        return {**record, **(outcome or {}), **files, "status": "succeeded"}
    failure = failure or describe_error(error)
    return {**record, **files, "status": "failed", "error": failure[0], "traceback": failure[1]}
