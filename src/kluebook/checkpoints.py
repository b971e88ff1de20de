"""The model registry (configs/models.yaml): released checkpoints and the offline stand-in,
and the early check that a hub checkpoint can be reached."""

from functools import cache

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
