"""`submission.yaml`: what a submission says about the model and the predictions, validated
strictly (an unknown key, a missing field or a wrong type is one line naming it)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from kluebook.common.errors import KluebookError
from kluebook.submissions.files import read_small_text

METADATA = "submission.yaml"
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
# A web address people can follow: http(s) only (no `javascript:`), no spaces or quotes.
Link = Annotated[str, StringConstraints(pattern=r"^https?://[^\s\"'<>]+$", max_length=500)]


class Submission(BaseModel):
    """The metadata of one submission."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    model: Text  # the model's name
    link: Link  # where the model (or the method) is described
    parameters: Annotated[int, Field(ge=0)]  # how many trained or stored parameters it has
    method: Literal["fine-tuned", "prompted", "other"]
    training_data: Text  # what it was trained (or prompted with examples) on
    dev_data_used: bool  # whether any KLUE dev data served for training or model selection
    tool: Text  # the program that made the predictions
    tool_version: Text  # its version or commit
    predictions_license: Text  # the license of the predictions files
    date: datetime.date  # when the predictions were made
    contact: Text | None = None


def validation_lines(error: ValidationError, where: str) -> list[str]:
    """One line per schema problem, naming the field."""
    lines = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "(top level)"
        if item["type"] == "missing":
            lines.append(f"{where}: missing field {field!r}")
        elif item["type"] == "extra_forbidden":
            lines.append(f"{where}: unknown field {field!r}")
        else:
            lines.append(f"{where}: field {field!r}: {item['msg']}")
    return lines


def read_submission(path: Path) -> tuple[Submission | None, list[str]]:
    """The metadata of `path` (a submission.yaml) and the problems found reading it."""
    try:
        data = yaml.safe_load(read_small_text(path))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark else ""
        return None, [f"{path.name}: not valid YAML{at}"]
    except KluebookError as error:
        return None, [str(error)]
    if not isinstance(data, dict):
        return None, [f"{path.name}: expected a mapping of fields"]
    try:
        return Submission.model_validate(data), []
    except ValidationError as error:
        return None, validation_lines(error, path.name)
