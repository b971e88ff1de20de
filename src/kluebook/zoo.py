"""The model registry (configs/models.yaml): released checkpoints and the offline stand-in."""

from functools import cache

import yaml

from kluebook.paths import CONFIGS

UNLISTED = {"family": "unknown", "size": "base"}


@cache
def registered_models() -> dict[str, dict]:
    with open(CONFIGS / "models.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)["models"]


def model_entry(model: str) -> dict:
    """The registry entry of a model; any other id or path is treated as a base-size model."""
    return registered_models().get(model, UNLISTED)
