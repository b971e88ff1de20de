"""The first problem of a pydantic validation error, by name: what a one-line error says."""

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError


@dataclass(frozen=True)
class Problem:
    """A validation error's first problem: the field it is at (`name`, the location's first
    part; `where`, the whole location dotted), whether that field is unknown to the model
    (`extra="forbid"`), pydantic's message and the value given."""

    name: str | int
    where: str
    unknown: bool
    message: str
    given: Any


def first_problem(error: ValidationError) -> Problem:
    """`error`'s first problem."""
    first = error.errors()[0]
    return Problem(
        name=first["loc"][0] if first["loc"] else "",
        where=".".join(str(part) for part in first["loc"]),
        unknown=first["type"] == "extra_forbidden",
        message=first["msg"],
        given=first.get("input"),
    )
