"""Run matrices: a profile's (configs/<profile>.yaml) or a sweep file's, read and checked, and
the grid of parameter combinations a matrix spans."""

import itertools
from pathlib import Path

import yaml

from kluebook.common.errors import KluebookError
from kluebook.common.paths import CONFIGS
from kluebook.methods.registry import DEFAULT_METHOD, method_names
from kluebook.training.recipes import PROFILES

MATRIX_KEYS = {"profile", "method", "data_source", "data_dir", "models", "seeds", "parameters"}


def load_matrix(profile: str | None = None, path: str | Path | None = None) -> dict:
    """A run matrix: the file at `path` (a sweep), or configs/<profile>.yaml; validated."""
    if path is None:
        if profile not in PROFILES:
            raise KluebookError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
        path = CONFIGS / f"{profile}.yaml"
    try:
        with open(path, encoding="utf-8") as handle:
            matrix = yaml.safe_load(handle)
    except OSError as error:
        raise KluebookError(f"cannot read the run matrix {path}: {error.strerror}") from error
    except yaml.YAMLError as error:
        raise KluebookError(f"{path}: not valid YAML ({str(error).splitlines()[0]})") from error
    validate_matrix(matrix, path)
    return matrix


def validate_matrix(matrix, path) -> None:
    """One-line errors for a run matrix that does not have the schema of configs/smoke.yaml."""
    if not isinstance(matrix, dict):
        raise KluebookError(
            f"{path}: a run matrix is a mapping of {', '.join(sorted(MATRIX_KEYS))}"
        )
    unknown = sorted(set(matrix) - MATRIX_KEYS)
    if unknown:
        raise KluebookError(
            f"{path}: unknown key {unknown[0]!r}; known: {', '.join(sorted(MATRIX_KEYS))}"
        )
    if matrix.get("profile") not in PROFILES:
        raise KluebookError(f"{path}: profile must be one of {', '.join(PROFILES)}")
    if matrix.get("method", DEFAULT_METHOD) not in method_names():
        raise KluebookError(f"{path}: method must be one of {', '.join(method_names())}")
    models, seeds = matrix.get("models"), matrix.get("seeds")
    if not isinstance(models, list) or not models or not all(isinstance(m, str) for m in models):
        raise KluebookError(f"{path}: models must be a non-empty list of model ids or paths")
    if not isinstance(seeds, list) or not seeds or not all(type(s) is int for s in seeds):
        raise KluebookError(f"{path}: seeds must be a non-empty list of integers")
    parameters = matrix.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise KluebookError(f"{path}: parameters must map names to a value or a list of values")
    for name, values in parameters.items():
        if isinstance(values, list) and not values:
            raise KluebookError(f"{path}: parameter {name!r} has an empty list of values")
        if isinstance(values, dict):
            raise KluebookError(f"{path}: parameter {name!r} must be a value or a list of values")


def parameter_grid(parameters: dict) -> list[dict]:
    """Every combination of the parameters: a list value is a grid axis, a scalar is fixed."""
    axes = {k: v if isinstance(v, list) else [v] for k, v in parameters.items()}
    return [dict(zip(axes, values, strict=True)) for values in itertools.product(*axes.values())]


def default_data(profile: str) -> tuple[str, str]:
    """The data source and folder of the profile's own matrix: a run on other data names them."""
    defaults = load_matrix(profile)
    return defaults["data_source"], str(defaults.get("data_dir") or "")
