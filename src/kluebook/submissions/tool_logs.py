"""What other tools wrote about a run, read as untrusted input for `kluebook submissions import`:
each item's texts, guid (where the tool kept one) and answer, and what the run says of itself
(tool, version, model, date).

- lm-evaluation-harness `--log_samples`: `samples_<task>_<time>.jsonl`, one line per document
  (`doc`, the per-choice `arguments` and `filtered_resps`), and `results_<time>.json` beside it.
  A multiple-choice document's answer is the choice of the highest log-likelihood (lm-eval's
  `acc`), named by its continuation; a generated one's is its filtered text.
- Inspect AI eval logs: `.json`, or `.eval` (a zip of `header.json` and `samples/*.json`; its
  members stored, deflated or, as Inspect writes them today, Zstandard-compressed, which needs the
  `zstandard` module). A sample's answer is its scorer's `answer` (a letter naming one of its
  `choices`, or text), else the model's completion; only the first epoch is read.

Every file is size-limited (`files.Limits`), a zip's members too, and nothing in them is run.
"""

from __future__ import annotations

import datetime
import io
import json
import re
import struct
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.submissions.files import DEFAULT_LIMITS, Limits, json_lines

LM_EVAL = "lm-evaluation-harness"
INSPECT = "Inspect AI"
LM_EVAL_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d\d-\d\dT[\d.\-]+)\.jsonl$")
ZSTANDARD = 93  # the zip compression method of Zstandard
MAX_MEMBERS = 200_000  # members of an .eval zip


@dataclass(frozen=True)
class ToolItem:
    """One item as a tool logged it."""

    where: str  # the file and line or sample, for messages
    guid: str | None  # the item's guid, where the tool kept one
    texts: tuple[str, ...]  # every text of the item the tool kept
    answer: str | None  # the tool's answer in its own words; None where it gave none


@dataclass(frozen=True)
class ToolRun:
    """What one tool's output says: per task (as the tool names it) its items, and of itself."""

    tool: str
    tool_version: str | None = None
    model: str | None = None
    parameters: int | None = None
    date: datetime.date | None = None
    tasks: dict[str, list[ToolItem]] = field(default_factory=dict)


def texts_of(value: object) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from texts_of(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from texts_of(inner)


def _guid(*places: object) -> str | None:
    """The first `guid` string among mappings."""
    for place in places:
        if isinstance(place, dict) and isinstance(place.get("guid"), str):
            return place["guid"]
    return None


def _read_json(path: Path, limits: Limits) -> object:
    size = path.stat().st_size
    if size > limits.file_bytes:
        raise KluebookError(f"{path.name}: {size} bytes, over the limit of {limits.file_bytes}")
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise KluebookError(f"{path.name}: not valid JSON ({type(error).__name__})") from error


# --- lm-evaluation-harness ---------------------------------------------------------------------


def _lm_eval_answer(row: dict, where: str) -> str | None:
    """A logged document's answer: the most likely choice's continuation, or generated text."""
    responses = row.get("filtered_resps")
    if not isinstance(responses, list) or not responses:
        return None
    if all(isinstance(r, list) and r for r in responses):  # a log-likelihood per choice
        choices = _lm_eval_continuations(row.get("arguments"))
        if choices is None or len(choices) != len(responses):
            raise KluebookError(f"{where}: its choices' arguments do not match its responses")
        try:
            scores = [float(r[0]) for r in responses]
        except (TypeError, ValueError) as error:
            raise KluebookError(f"{where}: a response is not a log-likelihood") from error
        best = max(range(len(scores)), key=scores.__getitem__)
        return choices[best].strip() if isinstance(choices[best], str) else None
    first = responses[0]
    return first if isinstance(first, str) else None


def _lm_eval_continuations(arguments: object) -> list | None:
    """The continuation (the choice's text) of each request of a document, in order: as lm-eval
    logs them today (`{"gen_args_0": {"arg_0": context, "arg_1": continuation}, ...}`) or as
    earlier versions did (`[[context, continuation], ...]`); None for another shape."""
    if isinstance(arguments, list):
        pairs = [a for a in arguments if isinstance(a, list) and len(a) == 2]
        return [pair[1] for pair in pairs] if len(pairs) == len(arguments) else None
    if not isinstance(arguments, dict):
        return None
    try:
        ordered = sorted(arguments, key=lambda key: int(key.rsplit("_", 1)[-1]))
    except ValueError:
        return None
    return [a.get("arg_1") if isinstance(a, dict) else None for a in map(arguments.get, ordered)]


def _lm_eval_results(samples: Path, limits: Limits) -> dict:
    """The results file written with a samples file (same time), {} if there is none."""
    match = LM_EVAL_SAMPLES.match(samples.name)
    path = samples.with_name(f"results_{match['time']}.json") if match else None
    if path is None or not path.is_file():
        return {}
    data = _read_json(path, limits)
    return data if isinstance(data, dict) else {}


def _lm_eval_model(results: dict) -> str | None:
    """The model's name, unless it is a path on the machine that ran it."""
    name = results.get("model_name")
    if not isinstance(name, str) or not name or name[0] in "/.~" or "\\" in name:
        return None
    return name


def read_lm_eval(path: Path, limits: Limits = DEFAULT_LIMITS) -> ToolRun:
    """lm-eval's `--log_samples` output: a samples file, or a folder holding some."""
    files = sorted(path.rglob("samples_*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise KluebookError(f"{path.name}: no lm-eval samples file (samples_<task>_<time>.jsonl)")
    tasks: dict[str, list[ToolItem]] = {}
    found: dict = {}
    for file in files:
        match = LM_EVAL_SAMPLES.match(file.name)
        if not match:
            raise KluebookError(f"{file.name}: not an lm-eval samples file's name")
        items, seen = tasks.setdefault(match["task"], []), set()
        for number, row in json_lines(file, limits, allow_constants=True):
            where = f"{file.name} line {number}"
            doc = row.get("doc")
            if not isinstance(doc, dict) or "doc_id" not in row:
                raise KluebookError(f"{where}: not an lm-eval sample (no doc or doc_id)")
            if row["doc_id"] in seen:  # the same document under another filter
                continue
            seen.add(row["doc_id"])
            items.append(
                ToolItem(where, _guid(doc), tuple(texts_of(doc)), _lm_eval_answer(row, where))
            )
        results = _lm_eval_results(file, limits)
        config = results.get("config") if isinstance(results.get("config"), dict) else {}
        timestamp = results.get("date")
        found.setdefault("tool_version", results.get("lm_eval_version"))
        found.setdefault("model", _lm_eval_model(results))
        found.setdefault("parameters", config.get("model_num_parameters") or None)
        if isinstance(timestamp, int | float):
            found.setdefault(
                "date", datetime.datetime.fromtimestamp(timestamp, datetime.UTC).date()
            )
    return ToolRun(LM_EVAL, tasks=tasks, **found)


# --- Inspect AI ----------------------------------------------------------------------------------


def _message_texts(value: object) -> Iterator[str]:
    """The texts of a sample's input: a string, or chat messages (content strings or parts)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for message in value:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                yield content
            elif isinstance(content, list):
                for part in content:
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        yield part["text"]


def _inspect_answer(sample: dict) -> str | None:
    """A sample's answer: its scorer's answer (a letter names one of its choices), else the
    model's completion."""
    choices = sample.get("choices") if isinstance(sample.get("choices"), list) else []
    scores = sample.get("scores") if isinstance(sample.get("scores"), dict) else {}
    for score in scores.values():
        answer = score.get("answer") if isinstance(score, dict) else None
        if not isinstance(answer, str):
            continue
        letter = answer.strip()
        if choices and len(letter) == 1 and "A" <= letter <= "Z":
            index = ord(letter) - ord("A")
            return choices[index] if index < len(choices) else letter
        return answer
    output = sample.get("output")
    completion = output.get("completion") if isinstance(output, dict) else None
    return completion if isinstance(completion, str) and completion else None


def _inspect_item(sample: object, where: str) -> ToolItem | None:
    """A logged sample as an item; None for a later epoch."""
    if not isinstance(sample, dict) or "id" not in sample:
        raise KluebookError(f"{where}: not an Inspect sample (no id)")
    if sample.get("epoch", 1) != 1:
        return None
    metadata = sample.get("metadata") if isinstance(sample.get("metadata"), dict) else {}
    guid = _guid(metadata) or (sample["id"] if isinstance(sample["id"], str) else None)
    texts = (*_message_texts(sample.get("input")), *texts_of(metadata))
    return ToolItem(f"{where} sample {sample['id']}", guid, texts, _inspect_answer(sample))


class _Members:
    """An .eval zip's members, each read within the limits (a zip bomb stops at the cap)."""

    def __init__(self, archive: zipfile.ZipFile, name: str, limits: Limits):
        self.archive, self.name, self.limits, self.total = archive, name, limits, 0

    def read(self, info: zipfile.ZipInfo) -> object:
        if info.compress_type == ZSTANDARD:
            content = self._zstandard(info)
        else:
            with self.archive.open(info) as handle:
                content = handle.read(self.limits.line_bytes * 16 + 1)
        self.total += len(content)
        if (
            len(content) > self.limits.line_bytes * 16
            or self.total > self.limits.decompressed_bytes
        ):
            raise KluebookError(f"{self.name}: {info.filename}: over the size limit once unpacked")
        try:
            return json.loads(content.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise KluebookError(f"{self.name}: {info.filename}: not valid JSON") from error

    def _zstandard(self, info: zipfile.ZipInfo) -> bytes:
        """A Zstandard member (Python's zipfile reads it only from 3.14 on)."""
        try:
            import zstandard  # optional: Inspect's own dependency, not kluebook's
        except ImportError:
            raise KluebookError(
                f"{self.name}: its members are Zstandard-compressed, which this Python cannot "
                "read: install `zstandard`, or convert the log with `inspect log convert "
                "--to json`"
            ) from None
        handle = self.archive.fp
        handle.seek(info.header_offset)
        local = handle.read(30)  # the local file header: its name and extra field follow
        name_length, extra_length = struct.unpack("<HH", local[26:30])
        handle.seek(info.header_offset + 30 + name_length + extra_length)
        compressed = io.BytesIO(handle.read(info.compress_size))
        reader = zstandard.ZstdDecompressor().stream_reader(compressed)
        return reader.read(self.limits.line_bytes * 16 + 1)


def read_inspect(path: Path, limits: Limits = DEFAULT_LIMITS) -> ToolRun:
    """An Inspect eval log, `.json` or `.eval`."""
    if path.suffix == ".json":
        log = _read_json(path, limits)
        if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
            raise KluebookError(
                f"{path.name}: not an Inspect eval log (no eval), nor a kluebook run's record "
                "with its <stem>.predictions.jsonl beside it"
            )
        header, samples = log, log.get("samples") or []
        where = path.name
        items = [_inspect_item(sample, where) for sample in samples]
    else:
        try:
            archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as error:
            raise KluebookError(f"{path.name}: not an Inspect .eval log (not a zip)") from error
        with archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise KluebookError(f"{path.name}: more than {MAX_MEMBERS} members")
            members = _Members(archive, path.name, limits)
            named = {info.filename: info for info in infos}
            start = named.get("header.json") or named.get("_journal/start.json")
            if start is None:
                raise KluebookError(f"{path.name}: not an Inspect .eval log (no header.json)")
            header = members.read(start)
            samples = [i for i in infos if re.fullmatch(r"samples/[^/]+\.json", i.filename)]
            items = [_inspect_item(members.read(info), path.name) for info in samples]
    spec = header.get("eval") if isinstance(header, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("task"), str):
        raise KluebookError(f"{path.name}: not an Inspect eval log (no eval task)")
    packages = spec.get("packages") if isinstance(spec.get("packages"), dict) else {}
    created = spec.get("created")
    try:
        date = datetime.datetime.fromisoformat(created).date() if created else None
    except (TypeError, ValueError):
        date = None
    model = spec.get("model") if isinstance(spec.get("model"), str) else None
    return ToolRun(
        INSPECT,
        tool_version=packages.get("inspect_ai"),
        model=model,
        date=date,
        tasks={spec["task"]: [item for item in items if item is not None]},
    )
