"""Where a run's data comes from, and loading it as records in the official shape.

Three sources:
- `generated`: the smoke data of each task's generator, written once in the official layout;
- `official`: a folder laid out like the KLUE repository's `klue_benchmark/` (see `fetch`);
- `hub`: the Hugging Face dataset `klue/klue` (data v1, its label orders mapped on load).
"""

import hashlib
from pathlib import Path

from filelock import FileLock

from kluebook.errors import KluebookError
from kluebook.json_files import write_json
from kluebook.paths import CACHE
from kluebook.tasks import Task

SOURCES = ("generated", "official", "hub")
HUB_DATASET = "klue/klue"
HUB_SPLITS = {"train": "train", "dev": "validation"}
# Bump when a generator or a task's `smoke_data` sizes change, so cached smoke data is rebuilt.
GENERATOR_VERSION = 3
GENERATOR_SEED = 0


def generated_data_dir(task: Task) -> Path:
    """The task's smoke data in the official layout, generated on first use."""
    folder = CACHE / "data" / f"generated-v{GENERATOR_VERSION}"
    complete = folder / f".{task.name}.complete"  # written last: the files are whole
    if complete.exists():
        return folder
    # Several runs (threads, kernels, Dask workers on one machine) may ask at once: one writes.
    (CACHE / "locks").mkdir(parents=True, exist_ok=True)
    with FileLock(CACHE / "locks" / f"generated-v{GENERATOR_VERSION}-{task.name}.lock"):
        if complete.exists():
            return folder
        for role, content in task.module.generate(seed=GENERATOR_SEED, **task.smoke_data).items():
            path = folder / task.files[role]
            if role in HUB_SPLITS:
                task.module.write_official(content, path)
            else:
                write_json(path, content)
        complete.touch()
    return folder


def data_dir_for(task: Task, source: str, data_dir: str | Path | None) -> Path | None:
    """The folder of official-format files for a run, checked before any work is done."""
    if source not in SOURCES:
        raise KluebookError(f"unknown data source {source!r}; choose one of {', '.join(SOURCES)}")
    if source == "hub":
        return None
    if source == "generated":
        return generated_data_dir(task)
    if data_dir is None:
        raise KluebookError("data source 'official' needs --data-dir (see `kluebook data fetch`)")
    folder = Path(data_dir)
    missing = [rel for rel in task.files.values() if not (folder / rel).is_file()]
    if missing:
        raise KluebookError(f"{folder} lacks the {task.name} files: {', '.join(missing)}")
    return folder


def load_split(task: Task, split: str, source: str, data_dir: str | Path | None) -> list[dict]:
    """The records of one split (`train` or `dev`) in the official shape."""
    if source == "hub":
        import datasets

        try:
            rows = datasets.load_dataset(HUB_DATASET, task.hub_config, split=HUB_SPLITS[split])
        except Exception as error:  # offline, proxy and hub errors of several libraries
            raise KluebookError(
                f"cannot load {HUB_DATASET}/{task.hub_config} from the Hugging Face hub: "
                f"{type(error).__name__}"
            ) from error
        return task.module.from_hub(rows)
    folder = data_dir_for(task, source, data_dir)
    return task.module.read_official(folder / task.files[split])


def data_checksum(task: Task, source: str, data_dir: str | Path | None) -> str:
    """SHA-256 over the task's files (hub data: the dataset id, as no local file exists)."""
    if source == "hub":
        return f"hub:{HUB_DATASET}/{task.hub_config}"
    folder = data_dir_for(task, source, data_dir)
    digest = hashlib.sha256()
    for relative in sorted(task.files.values()):
        digest.update(relative.encode())
        digest.update(file_sha256(folder / relative).encode())
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
