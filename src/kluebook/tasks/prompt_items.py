"""What a task offers the prompted track: its templates (`prompts/*.yaml`) and its prompting
module.

A task folder that can be prompted holds, beside `task.yaml`:

- `prompts/`, its family of templates, one file each, named by the file's stem (`standard`,
  the default, and others: `PromptTemplate`): a Korean instruction, the answer format, the query
  laid out from an item's fields, the way of answering (`mode`) and the template's own words for
  the task's answers (`answer_words`);
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

TEMPLATES_FOLDER = "prompts"
DEFAULT_TEMPLATE = "standard"  # the template of a run that names none


@dataclass(frozen=True)
class PromptItem:
    """One dev or train example as the prompt sees it.

    `key` is the prediction key of the example (the task's `prediction_key` of its line);
    `fields` fill the template's `query`; `answer` is the gold answer in the task's own words
    (a template writes it in its `answer_words`: a demonstration's answer, and what the oracle
    test feeds the parser); `choices` is the closed answer set of a `rank` task, in a fixed
    order, in the task's words too. `grounds` is what a generated answer may name, where a task
    checks it against more than the item's fields (shared by the items of a split).
    """

    key: Hashable
    fields: dict[str, str]
    answer: str
    choices: tuple[str, ...] = ()
    grounds: frozenset[str] = frozenset()


class PromptTemplate(BaseModel):
    """One template of a task's family (`prompts/<name>.yaml`): unknown keys are refused, so a
    typo names itself. Its `name` is the file's stem, never written in the file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = DEFAULT_TEMPLATE
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
    # The template's words for whole answers of the task (a choice, or the word for "no
    # answer"): {the task's word: this template's}; a word not named is the task's own.
    answer_words: dict[str, str] = {}
    # Corrections of a ranked run computed beside its uncorrected scores, never instead of
    # them (`kluebook.prompting.corrections`): contextual calibration, PMI scoring. A run that
    # answers by generation has no scores to correct, and none.
    corrections: list[Literal["contextual", "pmi"]] = []

    @field_validator("corrections")
    @classmethod
    def _corrections_are_distinct(cls, corrections: list[str]) -> list[str]:
        if len(set(corrections)) != len(corrections):
            raise ValueError("corrections must name each correction once")
        return corrections

    @field_validator("answer_words")
    @classmethod
    def _words_are_distinct(cls, words: dict[str, str]) -> dict[str, str]:
        written = list(words.values())
        if len(set(written)) != len(written) or any(not w.strip() for w in written):
            raise ValueError("answer_words must give every answer its own non-empty word")
        return words

    def written(self, answer: str) -> str:
        """A whole answer in the task's words as this template writes it."""
        return self.answer_words.get(answer, answer)

    def read_back(self, body: str) -> str:
        """A whole answer in this template's words in the task's own (the inverse of
        `written`); any other text is left as it is."""
        return {w: a for a, w in self.answer_words.items()}.get(body, body)

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

    def parse_answer(self, item: PromptItem, body: str) -> "dict | Ungrounded | None":
        """A generated answer's body (`prompt_answers.answer_text`: in the task's words) as a
        predictions line; `Ungrounded` for one that reads but is not grounded in the item (the
        line to score, if any, with it); None when it cannot be read."""

    def rank_prediction(self, item: PromptItem, logprobs: dict[str, float]) -> dict:
        """The predictions line from the log-likelihood of each of `item.choices`."""

    def fallback_prediction(self, item: PromptItem) -> dict:
        """The line scored for an unreadable answer: it always counts as wrong."""


@dataclass(frozen=True)
class Ungrounded:
    """An answer that reads but is not grounded in its item (an answer that is no span of the
    passage, a copy that changes the sentence, an arc to a word that is not there): why, in
    words, and the line it is scored as (None: the task's fallback)."""

    why: str
    line: dict | None = None


PROMPTING_INTERFACE = tuple(name for name in vars(TaskPrompting) if not name.startswith("_"))


def template_names(task_folder: Path) -> list[str]:
    """The names of a task folder's templates, sorted ([] for a task that cannot be prompted)."""
    return sorted(path.stem for path in (task_folder / TEMPLATES_FOLDER).glob("*.yaml"))


def template_path(task_folder: Path, name: str) -> Path:
    """The file of the template `name` of a task folder (one-line error naming the others): one
    of its templates by name, never a path elsewhere."""
    path = task_folder / TEMPLATES_FOLDER / f"{name}.yaml"
    if name not in template_names(task_folder):
        known = template_names(task_folder)
        if not known:
            raise KluebookError(
                f"{task_folder / TEMPLATES_FOLDER}: no prompt template (the task cannot be "
                "prompted)"
            )
        raise KluebookError(f"template {name!r}: no such template; known: {', '.join(known)}")
    return path


def load_template(path: Path) -> PromptTemplate:
    """A template file, validated and named by its stem (one-line error naming the file and
    the problem)."""
    try:
        entry = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(entry, dict):
            raise KluebookError(f"{path}: not a valid prompt template: not a mapping of keys")
        if "name" in entry:
            raise KluebookError(f"{path}: a template is named by its file; drop its 'name' key")
        return PromptTemplate.model_validate({**entry, "name": path.stem})
    except FileNotFoundError:
        raise KluebookError(f"{path}: no prompt template (the task cannot be prompted)") from None
    except (yaml.YAMLError, ValidationError) as error:
        first = str(error).splitlines()
        raise KluebookError(f"{path}: not a valid prompt template: {' '.join(first[:3])}") from None
