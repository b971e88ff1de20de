"""`kluebook submissions import`: a submission folder made from what a tool wrote: a kluebook
run's record and predictions, lm-evaluation-harness `--log_samples` output, or an Inspect AI
eval log (`tool_logs`).

Each item is given its KLUE guid: the guid the tool kept (in the document or the sample's
metadata) where it is one of the dev file's, else the dev item whose every text field (the
fields its task's prompt shows, `TaskPrompting.prompt_items`) is among the item's texts, or,
failing that, inside one of them (a rendered prompt). An item that matches no dev item, or
more than one, is left out and reported. Each answer is read as the task reads a prompted
answer (`parse_answer`: one of its choices in its own words), or as the value it stands for
(a label's name), after the `answers` given map the tool's words to either; an answer that
reads as none of them, or whose line the task's `check_line` refuses, is left out and
reported. The items are matched against the official v1.1 dev file (or its reduced copy) in
the data folder, or, where it has none, the task's generated smoke data (said in the report).

The metadata comes from the source where it says it (model, tool, version, date, and a kluebook
run's method) and from the options otherwise; what neither gives is an error naming it, never
guessed. The folder is written whole or not at all, and then checked as
`kluebook submissions check` checks it.
"""

from __future__ import annotations

import datetime
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

import yaml
from pydantic import ValidationError

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_jsonl
from kluebook.data.loading import generated_data_dir
from kluebook.prompting.registry import task_prompting
from kluebook.recording.records import parse_record
from kluebook.scoring.predictions import records_by_key
from kluebook.submissions.check import SHOWN, CheckReport, GoldFile, check_submission, gold_file
from kluebook.submissions.files import DEFAULT_LIMITS, SLUG, Limits, prediction_lines
from kluebook.submissions.schema import METADATA, Submission, validation_lines
from kluebook.submissions.tool_logs import (
    LM_EVAL_SAMPLES,
    ToolItem,
    ToolRun,
    read_inspect,
    read_lm_eval,
)
from kluebook.tasks import Task, all_tasks, task_module
from kluebook.tasks.prompt_items import PromptItem, Ungrounded

KLUEBOOK = "kluebook"
CHOICE_SCORES = "choice_logprobs"  # a line's log-probability of each choice (rank mode)
# The option that gives each metadata field, named in the error for a missing one.
OPTIONS = {
    "model": "--model",
    "link": "--link",
    "parameters": "--parameters",
    "method": "--method",
    "training_data": "--training-data",
    "dev_data_used": "--dev-data-used/--no-dev-data-used",
    "tool": "--tool",
    "tool_version": "--tool-version",
    "predictions_license": "--license",
    "date": "--date",
    "contact": "--contact",
}


@dataclass(frozen=True)
class Source:
    """One source read: its tool's run, or a kluebook run's predictions lines per task."""

    run: ToolRun
    lines: dict[str, list[dict]] = field(default_factory=dict)
    method: str | None = None  # a kluebook run's


@dataclass
class Tally:
    """How many items one reason left out, and the first SHOWN of them."""

    count: int = 0
    first: list[str] = field(default_factory=list)

    def add(self, where: str) -> None:
        self.count += 1
        if len(self.first) < SHOWN:
            self.first.append(where)

    def line(self, why: str) -> str:
        more = f" and {self.count - SHOWN} more" if self.count > SHOWN else ""
        items = "item" if self.count == 1 else "items"
        return f"{self.count} {items} left out, {why}: {', '.join(self.first)}{more}"


@dataclass
class TaskImport:
    """One task's items: how many were read and mapped, and why the others were left out."""

    task: str
    source_task: str
    gold: str  # what the items were matched against
    items: int = 0
    by_guid: int = 0
    by_text: int = 0
    left_out: dict[str, Tally] = field(default_factory=dict)
    lines: list[dict] = field(default_factory=list)
    kept_fields: frozenset[str] = frozenset()  # a line's fields that are written
    dropped_fields: set[str] = field(default_factory=set)  # the others met

    def leave_out(self, why: str, where: str) -> None:
        self.left_out.setdefault(why, Tally()).add(where)


@dataclass
class ImportReport:
    """What an import wrote, per task, and the check of the folder it wrote."""

    folder: Path
    tasks: list[TaskImport]
    check: CheckReport


def read_source(path: Path, limits: Limits = DEFAULT_LIMITS) -> Source:
    """A tool's output, told by its name: a kluebook run's record (`<stem>.json` beside
    `<stem>.predictions.jsonl`), an lm-eval samples file or folder, an Inspect `.eval` or
    `.json` log."""
    if path.is_symlink() or not path.exists():
        raise KluebookError(f"{path.name}: no such file or folder (links are not followed)")
    if path.is_dir() or LM_EVAL_SAMPLES.match(path.name):
        return Source(read_lm_eval(path, limits))
    if path.suffix == ".eval":
        return Source(read_inspect(path, limits))
    if path.suffix == ".json":
        if path.with_suffix(".predictions.jsonl").is_file():
            return read_kluebook_run(path, limits)
        return Source(read_inspect(path, limits))
    raise KluebookError(
        f"{path.name}: not a known tool's output (a kluebook run's <stem>.json with its "
        "<stem>.predictions.jsonl, lm-eval's samples_<task>_<time>.jsonl or its folder, an "
        "Inspect .eval or .json log)"
    )


def read_kluebook_run(path: Path, limits: Limits = DEFAULT_LIMITS) -> Source:
    """A kluebook run's record and its predictions (`results/<profile>/<task>/<stem>.json`)."""
    record = parse_record(path)
    if record.status != "succeeded":
        raise KluebookError(f"{path.name}: the run {record.status}: it has no predictions")
    predictions = path.with_suffix(".predictions.jsonl")
    lines = [row for _, row in prediction_lines(predictions, limits)]
    commit = f" (commit {record.git_commit})" if record.git_commit else ""
    run = ToolRun(
        KLUEBOOK,
        tool_version=record.inputs.package + commit,
        model=record.model,
        date=datetime.datetime.fromisoformat(record.finished_at).date(),
        tasks={record.task: []},
    )
    return Source(run, {record.task: lines}, submitted_method(record.method))


def submitted_method(run_method: str) -> str:
    """A kluebook run's method as a submission declares it: its name where the submission
    schema knows it, else `other`."""
    known = get_args(Submission.model_fields["method"].annotation)
    return run_method if run_method in known else "other"


def klue_task(name: str, chosen: dict[str, str]) -> Task:
    """The KLUE task a tool's task name stands for: as `chosen` names it, else the one task name
    among the words of the tool's (`klue_<task>`, `kluebook-<task>`)."""
    tasks = all_tasks()
    if name in chosen:
        if chosen[name] not in tasks:
            raise KluebookError(f"--task {name}={chosen[name]}: no such task ({', '.join(tasks)})")
        return tasks[chosen[name]]
    words = [word for word in re.split(r"[^a-z0-9]+", name.lower()) if word in tasks]
    if len(set(words)) != 1:
        raise KluebookError(
            f"cannot tell which KLUE task the tool's task {name!r} is: name it with "
            f"--task {name}=<one of {', '.join(tasks)}>"
        )
    return tasks[words[0]]


def dev_records(task: Task, data_dir: Path) -> tuple[list[dict], str]:
    """The task's dev records and what they are: the official file (or its reduced copy) in
    the data folder, else its generated smoke data."""
    try:
        gold: GoldFile = gold_file(task, data_dir)
        kind = "official" if gold.official else "reduced copy of the official"
        return task_module(task).read_official(gold.path), f"{gold.relative} ({kind} dev file)"
    except KluebookError:
        if (data_dir / task.files["dev"]).is_file():
            raise  # a file that is there and is not the official one is an error, not absent
    path = generated_data_dir(task) / task.files["dev"]
    return task_module(task).read_official(path), "the generated smoke data (no official dev file)"


def normal(text: str) -> str:
    """A text as compared: Unicode NFC, runs of white space as one space, no outer spaces."""
    return " ".join(unicodedata.normalize("NFC", text).split())


class ItemIndex:
    """The dev items of a task, found by guid or by their text fields."""

    PREFIX = 8  # characters of an item's longest field that find it inside a longer text

    def __init__(self, items: list[PromptItem]):
        self.items = items
        self.by_key: dict[Hashable, PromptItem] = {item.key: item for item in items}
        self.fields = [tuple(normal(v) for v in item.fields.values()) for item in items]
        self.by_text: dict[str, set[int]] = {}
        # prefix length -> the first characters of an item's longest field -> those items
        self.by_prefix: dict[int, dict[str, set[int]]] = {}
        for index, values in enumerate(self.fields):
            for value in values:
                self.by_text.setdefault(value, set()).add(index)
            longest = max(values, key=len, default="")
            if longest:
                size = min(len(longest), self.PREFIX)
                self.by_prefix.setdefault(size, {}).setdefault(longest[:size], set()).add(index)

    def _inside(self, texts: list[str]) -> set[int]:
        """The items whose fields lie inside `texts` (a rendered prompt), each at its own place
        (a field found only inside another field is not found); of several, those that no
        other one contains field by field (an item whose field is part of another item's same
        field loses to that item)."""
        joined = "\0".join(texts)
        candidates: set[int] = set()
        for size, table in self.by_prefix.items():
            for start in range(len(joined) - size + 1):
                candidates |= table.get(joined[start : start + size], set())
        found = {i for i in candidates if _apart(self.fields[i], joined)}
        return {
            i
            for i in found
            if not any(
                j != i
                and self.fields[j] != self.fields[i]
                and all(a in b for a, b in zip(self.fields[i], self.fields[j], strict=True))
                for j in found
            )
        }

    def find(self, tool_item: ToolItem) -> tuple[PromptItem | None, str]:
        """The dev item a tool's item is, and how it was found ("guid" or "text"), or None and
        why not."""
        if tool_item.guid is not None and tool_item.guid in self.by_key:
            return self.by_key[tool_item.guid], "guid"
        texts = [normal(text) for text in tool_item.texts]
        present = set(texts)
        candidates = set().union(*(self.by_text.get(text, set()) for text in texts))
        matches = {i for i in candidates if all(v in present for v in self.fields[i])}
        if not matches:
            matches = self._inside(texts)
        keys = {self.items[i].key for i in matches}
        if len(keys) == 1:
            return self.by_key[keys.pop()], "text"
        if keys:
            return None, "matches more than one dev item"
        if tool_item.guid is not None:
            return None, "its guid is no dev item's and its text matches none"
        return None, "its text matches no dev item"


def _apart(values: tuple[str, ...], text: str) -> bool:
    """Whether each value is found in `text` at a place no longer one took (longest first)."""
    taken: list[tuple[int, int]] = []
    for value in sorted(values, key=len, reverse=True):
        start = text.find(value)
        while start != -1 and any(
            start < end and begin < start + len(value) for begin, end in taken
        ):
            start = text.find(value, start + 1)
        if start == -1:
            return False
        taken.append((start, start + len(value)))
    return True


def answer_line(task: Task, item: PromptItem, answer: str, answers: dict[str, str]) -> dict | None:
    """The predictions line an answer stands for, or None if it reads as none of the task's."""
    prompting = task_prompting(task.name)
    answer = answers.get(answer.strip(), answer.strip())
    line = prompting.parse_answer(item, answer)
    if isinstance(line, Ungrounded):
        line = line.line
    if line is not None:
        return line
    for choice in item.choices:  # an answer that names the value a choice stands for
        chosen = prompting.parse_answer(item, choice)
        if isinstance(chosen, dict) and answer in {
            str(value) for value in chosen.values() if value != item.key
        }:
            return chosen
    return None


def import_task(
    task: Task, source_task: str, source: Source, data_dir: Path, answers: dict[str, str]
) -> TaskImport:
    """One task's items mapped to guids and their answers to predictions lines."""
    records, described = dev_records(task, data_dir)
    # A line keeps the fields of the task's predictions format (and the choices' scores the
    # item browser reads), never others: a run's `item_prompt` holds the dev item's text.
    formats = task_module(task).gold_predictions(records[:1], {})
    kept = frozenset().union(*(line.keys() for line in formats)) | {CHOICE_SCORES}
    result = TaskImport(task.name, source_task, described, kept_fields=kept)
    by_key = records_by_key(task, records)
    seen: set = set()
    if source_task in source.lines:  # a kluebook run: lines keyed by guid already
        for number, line in enumerate(source.lines[source_task], 1):
            result.items += 1
            where = f"line {number}"
            try:
                key = task_module(task).prediction_key(line)
            except (KeyError, TypeError):
                result.leave_out("a line without a guid", where)
                continue
            if key not in by_key:
                result.leave_out("a guid of no dev item", str(key))
            elif key in seen:
                result.leave_out("a guid given twice", str(key))
            else:
                seen.add(key)
                result.by_guid += 1
                _keep(task, result, by_key[key], line, str(key))
        return result
    prompting = task_prompting(task.name)
    index = ItemIndex(prompting.prompt_items(records))
    for tool_item in source.run.tasks[source_task]:
        result.items += 1
        item, how = index.find(tool_item)
        if item is None:
            result.leave_out(f"not mapped ({how})", tool_item.where)
            continue
        if item.key in seen:
            result.leave_out("a dev item already read", tool_item.where)
            continue
        seen.add(item.key)
        if how == "guid":
            result.by_guid += 1
        else:
            result.by_text += 1
        if tool_item.answer is None:
            result.leave_out("no answer", tool_item.where)
            continue
        line = answer_line(task, item, tool_item.answer, answers)
        if line is None:
            shown = tool_item.answer.strip()[:40]
            result.leave_out("an answer outside the task's", f"{tool_item.where} {shown!r}")
            continue
        _keep(task, result, by_key[item.key], line, tool_item.where)
    return result


def _keep(task: Task, result: TaskImport, record: dict, line: dict, where: str) -> None:
    """A line kept (the fields of the predictions format only), unless its task's own check
    refuses its values."""
    problem = task_module(task).check_line(record, line) if task_module(task).check_line else None
    if problem is None:
        result.dropped_fields.update(line.keys() - result.kept_fields)
        result.lines.append({k: v for k, v in line.items() if k in result.kept_fields})
    else:
        result.leave_out(f"an answer refused ({problem.kind})", f"{where} {problem.found}".strip())


def metadata(sources: list[Source], given: dict) -> Submission:
    """The submission's metadata: each field as given, else as the sources say it (they must
    agree; the date is the last they give); a missing field is an error naming its option."""
    found: dict = {}
    for source in sources:
        run = source.run
        said = {
            "model": run.model,
            "parameters": run.parameters,
            "tool": run.tool,
            "tool_version": run.tool_version,
            "date": run.date,
            # lm-eval and Inspect answer by prompting; a kluebook run's record says how it ran.
            "method": source.method or ("prompted" if run.tool != KLUEBOOK else None),
        }
        for key, value in said.items():
            if value is None or key in given:
                continue
            if key == "date":  # the predictions were all made by the last run's day
                found[key] = max(found.get(key, value), value)
                continue
            if key in found and found[key] != value:
                raise KluebookError(
                    f"the sources disagree on {key} ({found[key]} and {value}): give it with "
                    f"{OPTIONS[key]}"
                )
            found[key] = value
    fields = {**found, **{k: v for k, v in given.items() if v is not None}}
    missing = [key for key in OPTIONS if key != "contact" and key not in fields]
    if missing:
        named = ", ".join(f"{key} ({OPTIONS[key]})" for key in missing)
        raise KluebookError(f"the sources do not say, so give: {named}")
    try:
        return Submission.model_validate(fields)
    except ValidationError as error:
        raise KluebookError("; ".join(validation_lines(error, "metadata"))) from None


def write_folder(folder: Path, submission: Submission, tasks: list[TaskImport]) -> None:
    """The submission folder written whole (a temporary folder beside it, renamed)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        content = submission.model_dump(exclude_none=True)
        (scratch / METADATA).write_text(
            yaml.safe_dump(content, allow_unicode=True, sort_keys=False), encoding="utf-8"
        )
        for task in tasks:
            write_jsonl(scratch / f"{task.task}.jsonl", task.lines)
        scratch.rename(folder)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise


def import_submission(
    paths: list[Path],
    folder: Path,
    given: dict,
    data_dir: Path,
    chosen: dict[str, str] | None = None,
    answers: dict[str, str] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> ImportReport:
    """A submission folder made from the tools' outputs at `paths`, and its check."""
    if not SLUG.fullmatch(folder.name):
        raise KluebookError(
            f"{folder.name!r}: a submission folder's name (its slug) must be 1-64 characters of "
            "a-z, 0-9, '-' and '_', starting with a letter or digit"
        )
    if folder.exists() or folder.is_symlink():
        raise KluebookError(f"{folder.name}: already exists; import into a new folder")
    sources = [read_source(path, limits) for path in paths]
    submission = metadata(sources, given)
    imported: dict[str, TaskImport] = {}
    for source in sources:
        for source_task in source.run.tasks:
            task = klue_task(source_task, chosen or {})
            if task.name in imported:
                raise KluebookError(
                    f"two sources give {task.name} ({imported[task.name].source_task} and "
                    f"{source_task}): import one"
                )
            imported[task.name] = import_task(task, source_task, source, data_dir, answers or {})
    empty = [t.task for t in imported.values() if not t.lines]
    if empty:
        raise KluebookError(f"no item of {', '.join(empty)} could be imported; nothing written")
    tasks = sorted(imported.values(), key=lambda t: all_tasks()[t.task].order)
    write_folder(folder, submission, tasks)
    return ImportReport(folder, tasks, check_submission(folder, data_dir, limits))
