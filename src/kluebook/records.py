"""Run records: one JSON file per (task, profile, model, seed), the data behind every table."""

import hashlib
import json
import platform
import subprocess
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from kluebook import __version__
from kluebook.errors import KluebookError
from kluebook.jsonio import read_json, write_json
from kluebook.paths import ROOT

RECORD_SCHEMA = 1
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
    """The checked-out commit, suffixed `-dirty` when tracked files have changed."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("-dirty" if dirty else "")


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


def package_code_hash() -> str:
    """A hash of the package's source, so that a code change invalidates cached runs."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def fingerprint(notebook_code: str, parameters: dict, data_checksum: str) -> str:
    """What must be unchanged for a finished run to be reused."""
    payload = json.dumps(
        {
            "notebook": notebook_code,
            "parameters": parameters,
            "package": __version__,
            "package_code": package_code_hash(),
            "data": data_checksum,
        },
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


def write_record(path: str | Path, record: dict) -> None:
    """Write a record atomically, stamped with the schema version."""
    write_json(path, {"schema": RECORD_SCHEMA, **record})
