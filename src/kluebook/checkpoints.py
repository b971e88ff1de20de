"""The model registry (configs/models.yaml): released checkpoints and the offline stand-in,
and the early check that a hub checkpoint can be reached."""

from functools import cache
from pathlib import Path

import yaml

from kluebook.errors import KluebookError
from kluebook.paths import CONFIGS

UNLISTED = {"family": "unknown", "size": "base"}


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


def check_model(model: str) -> None:
    """Fail early, in one line, for a model folder that is not there or a hub id that cannot be
    reached (the tiny stand-in is built by the run itself)."""
    from kluebook.tiny_model import TINY_MODEL

    if model == TINY_MODEL or Path(model).is_dir():
        return
    if Path(model).exists() or looks_like_path(model):
        raise KluebookError(f"model {model}: no such folder")
    check_hub_model(model)


def check_hub_model(model: str, timeout: float = 10.0) -> None:
    """Fail early, in one line, when a hub model id cannot be reached or does not exist.

    With HF_HUB_OFFLINE=1 (the hub's convention for machines without internet) the model is
    looked up in the local Hugging Face cache instead: its config.json must be cached.
    """
    import huggingface_hub
    from huggingface_hub.errors import HfHubHTTPError

    if huggingface_hub.is_offline_mode():  # HF_HUB_OFFLINE, read when the hub is imported
        if not isinstance(huggingface_hub.try_to_load_from_cache(model, "config.json"), str):
            raise KluebookError(
                f"model {model!r} is not in the local Hugging Face cache (HF_HUB_OFFLINE=1): "
                "run once with the hub reachable to download it"
            )
        return
    try:
        huggingface_hub.model_info(model, timeout=timeout)
    except HfHubHTTPError as error:
        raise KluebookError(
            f"model {model!r} not found on the Hugging Face hub ({error})"
        ) from error
    except Exception as error:  # connection, proxy and timeout errors of several libraries
        raise KluebookError(
            f"cannot reach the Hugging Face hub for model {model!r}: {type(error).__name__}"
        ) from error
