"""Where a run's data comes from, and loading it as records in the official shape.

Three sources:
- `generated`: the smoke data of each task's generator, written once in the official layout;
- `official`: a folder laid out like the KLUE repository's `klue_benchmark/` (see `fetch`);
- `hub`: the Hugging Face dataset `klue/klue` (data v1, its label orders mapped on load).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from filelock import FileLock

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_json
from kluebook.common.paths import CACHE
from kluebook.task_types.task import Task, task_module

SOURCES = ("generated", "official", "hub")
HUB_DATASET = "klue/klue"
HUB_SPLITS = {"train": "train", "dev": "validation"}
# Bump when a generator or a task's `smoke_data` sizes change, so cached smoke data is rebuilt.
GENERATOR_VERSION = 4
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
        code = task_module(task)
        for role, content in code.generate(seed=GENERATOR_SEED, **task.smoke_data).items():
            path = folder / task.files[role]
            if role in HUB_SPLITS:
                code.write_official(content, path)
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


def hub_dataset_revision(task: Task, revision: str = "", timeout: float = 10.0) -> str:
    """The commit of the hub dataset that `revision` names (a commit, tag or branch; "" for the
    current one); a full commit is taken as it is. With HF_HUB_OFFLINE=1, looked up in the local
    datasets cache (the most recent one there for ""); a one-line error when it is not there."""
    import huggingface_hub  # lazy: slow to import, and only hub data need it

    if huggingface_hub_offline():
        cached = cached_dataset_commits(task)
        found = revision in cached if revision else bool(cached)
        if not found:
            at = f" at revision {revision}" if revision else ""
            raise KluebookError(
                f"dataset {HUB_DATASET}/{task.hub_config}{at} is not in the local datasets "
                "cache (HF_HUB_OFFLINE=1): run once with the hub reachable to download it"
            )
        return revision or cached[-1]
    if re.fullmatch(r"[0-9a-f]{40}", revision):
        return revision
    try:
        info = huggingface_hub.dataset_info(HUB_DATASET, revision=revision or None, timeout=timeout)
    except Exception as error:  # connection, proxy, timeout and not-found errors
        raise KluebookError(
            f"cannot reach the Hugging Face hub for dataset {HUB_DATASET}"
            f"{f' at revision {revision}' if revision else ''}: {type(error).__name__}"
        ) from error
    return info.sha


def huggingface_hub_offline() -> bool:
    import huggingface_hub  # lazy: slow to import, and only hub data need it

    return huggingface_hub.is_offline_mode()


def cached_dataset_commits(task: Task) -> list[str]:
    """The commits of the task's hub config prepared in the local datasets cache, oldest first
    (`<cache>/klue___klue/<config>/<version>/<commit>/`, as `datasets` lays them out)."""
    import datasets  # lazy: seconds to import, and only hub data need it

    owner, name = HUB_DATASET.split("/")
    root = Path(datasets.config.HF_DATASETS_CACHE) / f"{owner}___{name}" / task.hub_config
    folders = [p for p in root.glob("*/*") if (p / "dataset_info.json").is_file()]
    return [p.name for p in sorted(folders, key=lambda p: p.stat().st_mtime)]


def load_split(
    task: Task, split: str, source: str, data_dir: str | Path | None, revision: str = ""
) -> list[dict]:
    """The records of one split (`train` or `dev`) in the official shape; hub data at
    `revision` (a commit)."""
    if source == "hub":
        import datasets  # lazy: seconds to import, and only hub data need it

        try:
            rows = datasets.load_dataset(
                HUB_DATASET, task.hub_config, split=HUB_SPLITS[split], revision=revision or None
            )
        except Exception as error:  # offline, proxy and hub errors of several libraries
            raise KluebookError(
                f"cannot load {HUB_DATASET}/{task.hub_config} from the Hugging Face hub: "
                f"{type(error).__name__}"
            ) from error
        cached = Path(rows.cache_files[0]["filename"]).parent.name if rows.cache_files else ""
        if revision and huggingface_hub_offline() and cached != revision:
            raise KluebookError(
                f"the datasets cache holds {HUB_DATASET}/{task.hub_config} at {cached[:12]}, "
                f"not at the pinned revision {revision[:12]}"
            )
        return task_module(task).from_hub(rows)
    folder = data_dir_for(task, source, data_dir)
    return task_module(task).read_official(folder / task.files[split])


def data_checksum(task: Task, source: str, data_dir: str | Path | None, revision: str = "") -> str:
    """SHA-256 over the task's files; hub data: the dataset and the commit it was read at."""
    if source == "hub":
        return f"hub:{HUB_DATASET}/{task.hub_config}" + (f"@{revision}" if revision else "")
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
