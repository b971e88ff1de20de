"""Where a run ran and on what: checkpoints named by content (`model_id`: the folder's name and
a hash of its files, never its path), the commit, library versions, the device. The run record
carries these facts (`kluebook.records`)."""

import hashlib
import json
import platform
import subprocess
from functools import cache
from importlib.metadata import PackageNotFoundError, distribution, version
from pathlib import Path

from kluebook import __version__
from kluebook.paths import CHECKOUT, ROOT, scrub

LIBRARIES = (
    "torch",
    "transformers",
    "datasets",
    "tokenizers",
    "scikit-learn",
    "numpy",
    "papermill",
)


def local_model(model: str) -> Path | None:
    """The folder of a local checkpoint (as given, or inside the book root), else None."""
    for path in (Path(model), ROOT / model):
        if path.is_dir():
            return path.resolve()
    return None


@cache
def folder_digest(folder: Path) -> str:
    """SHA-256 over the relative names and contents of every file in a folder."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def model_id(model: str) -> str:
    """How a run names its model: a hub id as it is; a local checkpoint folder by its name and
    a hash of its files (`standin-roberta@1a2b3c4d5e6f`), so no path of the machine is kept and
    a changed checkpoint is another model."""
    folder = local_model(model)
    return model if folder is None else f"{folder.name}@{folder_digest(folder)[:12]}"


def model_slug(model: str) -> str:
    """A file-name-safe form of a model's id: `klue/roberta-base` -> `klue--roberta-base`,
    a local folder -> `standin-roberta-1a2b3c4d5e6f`."""
    return model_id(model).strip("/").replace("/", "--").replace(" ", "_").replace("@", "-")


# How a record names the server a prompted run asked (`base_url`): not by its address, which
# is this machine's or network's, may change, and changes no answer of the model behind it.
SERVER = "<server>"


def portable_parameters(parameters: dict) -> dict:
    """A run's parameters as its record keeps them: the model by its id, no path of this
    machine (a data folder inside the book root is relative to it), no server address."""
    portable = {**parameters, "model": model_id(parameters["model"])}
    for name in ("data_dir", "output_dir"):
        if isinstance(portable.get(name), str):
            portable[name] = scrub(portable[name])
    if portable.get("base_url"):
        portable["base_url"] = SERVER
    return portable


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
    import torch  # lazy: torch takes seconds to import, and most commands never need it

    if torch.cuda.is_available():
        return f"cuda: {torch.cuda.get_device_name(0)}"
    return f"cpu: {platform.machine()}, {torch.get_num_threads()} threads"
