"""What a task offers the prompted track: its template (`prompt.yaml`) and its prompting module.

A task folder that can be prompted holds two files beside `task.yaml`:

- `prompt.yaml`, the template as declared data (`PromptTemplate`): a Korean instruction, the
  answer format, the query laid out from an item's fields, and the way of answering (`mode`);
- `prompting.py`, the task's side of the chain (`TaskPrompting`): its dev or train records as
  prompt items, and an answer turned back into a line of the task's predictions file, which the
  task's own official `score` reads.

The shared prompting code (`kluebook.prompting`: rendering, demonstrations, backends) names no
task; it reaches a task through `kluebook.prompting.registry.task_prompting`. This module sits
below the task folders, which import it.
"""

from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from string import Formatter
from typing import Literal, Protocol

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from kluebook.common.errors import KluebookError

TEMPLATE_FILE = "prompt.yaml"


@dataclass(frozen=True)
class PromptItem:
    """One dev or train example as the prompt sees it.

    `key` is the prediction key of the example (the task's `prediction_key` of its line);
    `fields` fill the template's `query`; `answer` is the gold answer written in the template's
    answer format (a demonstration's answer, and what the oracle test feeds the parser);
    `choices` is the closed answer set of a `rank` task, in a fixed order.
    """

    key: Hashable
    fields: dict[str, str]
    answer: str
    choices: tuple[str, ...] = ()


class PromptTemplate(BaseModel):
    """A task's `prompt.yaml`: unknown keys are refused, so a typo names itself."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["rank", "generate"]
    instruction: str  # Korean, what the model is asked to do
    answer_format: str  # Korean, how the answer must be written
    query: str  # a str.format layout of an item's fields
    answer_prefix: str = "답:"
    max_new_tokens: int = 32  # generation budget of the `generate` mode
    cut_reasoning: bool = True  # a reasoning trace (`<think>…</think>`) is not read as answer
    # How `rank` mode ranks the choices: by log-likelihood, or by log-likelihood per character
    # of the choice (a length normalisation).
    rank_normalisation: Literal["none", "per_character"] = "none"

    @field_validator("query")
    @classmethod
    def _placeholders_are_names(cls, query: str) -> str:
        query_fields(query)
        return query

    @property
    def fields(self) -> set[str]:
        """The item fields the query names."""
        return query_fields(self.query)


def query_fields(query: str) -> set[str]:
    """The field names of a `str.format` layout; a ValueError for braces that do not close and
    for a placeholder that is not a plain name (`{}`, `{0}`, `{a.b}`, `{a[0]}`)."""
    try:
        names = [name for _, name, _, _ in Formatter().parse(query) if name is not None]
    except ValueError as error:
        raise ValueError(f"{error}: write {{{{ and }}}} for a literal brace") from None
    for name in names:
        if not name.isidentifier():
            raise ValueError(f"the placeholder {{{name}}} is not a field's name")
    return set(names)


class TaskPrompting(Protocol):
    """The functions of a task's `prompting.py`."""

    def prompt_items(self, records: list[dict]) -> list[PromptItem]:
        """The records (as `read_official` returns them) as prompt items, in order."""

    def parse_answer(self, item: PromptItem, text: str) -> dict | None:
        """A generated answer as a predictions line, or None when it cannot be read."""

    def rank_prediction(self, item: PromptItem, logprobs: dict[str, float]) -> dict:
        """The predictions line from the log-likelihood of each of `item.choices`."""

    def fallback_prediction(self, item: PromptItem) -> dict:
        """The line scored for an unreadable answer: it always counts as wrong."""


PROMPTING_INTERFACE = tuple(name for name in vars(TaskPrompting) if not name.startswith("_"))


def load_template(path: Path) -> PromptTemplate:
    """A `prompt.yaml`, validated (one-line error naming the file and the problem)."""
    try:
        entry = yaml.safe_load(path.read_text(encoding="utf-8"))
        return PromptTemplate.model_validate(entry)
    except FileNotFoundError:
        raise KluebookError(f"{path}: no prompt template (the task cannot be prompted)") from None
    except (yaml.YAMLError, ValidationError) as error:
        first = str(error).splitlines()
        raise KluebookError(f"{path}: not a valid prompt template: {' '.join(first[:3])}") from None
