"""Where a run ran and on what: its model by its id (`kluebook.training.checkpoints.model_id`), the
commit, library versions, the device. The run record carries these facts
(`kluebook.recording.records`)."""

import json
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, distribution, version

from kluebook import __version__
from kluebook.common.paths import CHECKOUT, scrub
from kluebook.training.checkpoints import model_id

LIBRARIES = (
    "torch",
    "transformers",
    "datasets",
    "tokenizers",
    "scikit-learn",
    "numpy",
    "papermill",
)


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
