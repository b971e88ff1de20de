"""The model registry (configs/models.yaml): released checkpoints and the offline stand-in;
the early check that a checkpoint can be reached, and its hub revision, pinned to a commit; how
a run names its model (`model_id`: a local folder by its name and a hash of its files, never
its path)."""

import hashlib
import re
from functools import cache
from pathlib import Path

import yaml

from kluebook.common.errors import KluebookError
from kluebook.common.paths import CONFIGS, ROOT, file_name
from kluebook.training.tiny_model import TINY_CAUSAL_LM, TINY_MODEL

UNLISTED = {"family": "unknown", "size": "base"}
COMMIT = re.compile(r"[0-9a-f]{40}")
# The files of a hub checkpoint a run loads (weights, config, tokenizer), not its other formats.
MODEL_FILES = ["*.json", "*.txt", "*.model", "*.safetensors", "pytorch_model*.bin"]
# The commit each hub model of the run in progress is pinned to (`pin`), read where it loads.
_pinned: dict[str, str] = {}


@cache
def registered_models() -> dict[str, dict]:
    with open(CONFIGS / "models.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)["models"]


def model_entry(model: str) -> dict:
    """The registry entry of a model; any other id or path is treated as a base-size model."""
    return registered_models().get(model, UNLISTED)


def looks_like_path(model: str) -> bool:
    """A model given as a folder (`./ckpt`, `/models/x`, `runs/a/b`), not a hub id `org/name`."""
    return model.startswith((".", "/", "~")) or model.count("/") > 1 or "\\" in model


def check_model(model: str, revision: str = "") -> str:
    """Fail early, in one line, for a model folder that is not there or a hub id that cannot be
    reached (the tiny stand-in is built by the run itself). Returns the hub commit the model is
    pinned to: `revision` (a commit, tag or branch; "" for the current one) resolved; "" for a
    local folder or the stand-in, which take no revision."""
    if model in (TINY_MODEL, TINY_CAUSAL_LM) or Path(model).is_dir():
        if revision:
            raise KluebookError(f"--model-revision is for hub models, not {model}")
        return ""
    if Path(model).exists() or looks_like_path(model):
        raise KluebookError(f"model {model}: no such folder")
    return check_hub_model(model, revision)


def check_hub_model(model: str, revision: str = "", timeout: float = 10.0) -> str:
    """The commit `revision` of a hub model names ("" for the current one); a one-line error
    when it cannot be reached or does not exist. A full commit is taken as it is.

    With HF_HUB_OFFLINE=1 (the hub's convention for machines without internet) the model is
    looked up in the local Hugging Face cache instead: its config.json must be cached there.
    """
    import huggingface_hub  # lazy: slow to import, and only a hub check needs it
    from huggingface_hub.errors import HfHubHTTPError

    if huggingface_hub.is_offline_mode():  # HF_HUB_OFFLINE, read when the hub is imported
        cached = huggingface_hub.try_to_load_from_cache(
            model, "config.json", revision=revision or None
        )
        if not isinstance(cached, str):
            at = f" at revision {revision}" if revision else ""
            raise KluebookError(
                f"model {model!r}{at} is not in the local Hugging Face cache (HF_HUB_OFFLINE=1): "
                "run once with the hub reachable to download it"
            )
        return Path(cached).parent.name  # snapshots/<commit>/config.json
    if COMMIT.fullmatch(revision):
        return revision
    try:
        return huggingface_hub.model_info(model, revision=revision or None, timeout=timeout).sha
    except HfHubHTTPError as error:
        raise KluebookError(
            f"model {model!r} not found on the Hugging Face hub ({error})"
        ) from error
    except Exception as error:  # connection, proxy and timeout errors of several libraries
        raise KluebookError(
            f"cannot reach the Hugging Face hub for model {model!r}: {type(error).__name__}"
        ) from error


def pin(model: str, commit: str) -> None:
    """Load `model` at `commit` for the rest of this run (set by `notebook.start_run`)."""
    _pinned[model] = commit


def pinned_revision(model: str) -> str:
    return _pinned.get(model, "")


def hub_snapshot(model: str) -> str:
    """The local folder of a hub model's files at its pinned commit, downloaded if needed; with
    HF_HUB_OFFLINE=1, from the cache alone. Loading from it asks the hub nothing more."""
    import huggingface_hub  # lazy: slow to import, and only a hub download needs it

    revision = pinned_revision(model) or check_hub_model(model)
    return huggingface_hub.snapshot_download(model, revision=revision, allow_patterns=MODEL_FILES)


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
    a local folder -> `standin-roberta-1a2b3c4d5e6f`; an id of other characters (markup, a
    space, a letter outside ASCII) as its safe characters and a hash of the id (`file_name`)."""
    name = model_id(model)
    return file_name(name.strip("/").replace("/", "--").replace(" ", "_").replace("@", "-"), name)
