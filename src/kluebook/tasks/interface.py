"""What task code shares to offer the interface `TaskModule` (`kluebook.task_types.interface`):
guids from hub positions, the checks of a predictions line's values; and the module of a task
folder each of the interface's functions is read from.

Task modules import this, never the registry (`kluebook.tasks`), which imports them.
"""

import math
from collections.abc import Iterable
from dataclasses import MISSING, fields

from kluebook.task_types.interface import LineProblem, TaskModule


def with_position_guids(task: str, records: Iterable[dict]) -> list[dict]:
    """Records of a hub split that has no guids, each given one from its position in the split,
    `<task>-hub-00000`, as its first field."""
    return [{"guid": f"{task}-hub-{i:05d}", **record} for i, record in enumerate(records)]


HUB_COPY = "the Hugging Face klue/klue copy"


def is_finite_number(value: object) -> bool:
    """A JSON number that is finite (booleans excluded; 1e999 reads as infinity)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def class_label_problem(
    row: dict, names: tuple[str, ...], hub_names: tuple[str, ...]
) -> LineProblem | None:
    """A line's `label` against a task's class names; an integer is the hub copy's id of the
    class in `hub_names`' order."""
    label = row.get("label")
    if type(label) is int:
        numbered = f"{HUB_COPY} numbers them 0-{len(hub_names) - 1} as {', '.join(hub_names)}"
        return LineProblem("hub label id", repr(label), numbered)
    if label not in names:
        return LineProblem("label outside the label set", repr(label)[:40])
    return None


# The interface's functions, and the module of a task folder each is read from.
TASK_INTERFACE = tuple(f.name for f in fields(TaskModule))
REQUIRED = tuple(f.name for f in fields(TaskModule) if f.default is MISSING)
INTERFACE_MODULE = {name: "synthetic" if name == "generate" else "data" for name in TASK_INTERFACE}
