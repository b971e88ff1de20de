"""Reading a submission's files as untrusted input: a folder of plain files only (no link, no
sub-folder, no path outside it), each within a size limit, JSON Lines streamed one line at a
time, gzip decompressed in blocks up to a cap (a gzip bomb stops at the cap)."""

from __future__ import annotations

import gzip
import json
import re
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kluebook.common.errors import KluebookError

SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MAX_FILE_BYTES = 256 * 2**20  # a predictions file as stored (compressed or not)
MAX_DECOMPRESSED_BYTES = 512 * 2**20  # a gzip file's content
MAX_LINE_BYTES = 2**20  # one JSON line (a sentence's tags or heads are a few kilobytes)
MAX_TEXT_BYTES = 64 * 2**10  # submission.yaml, README.md
PREDICTIONS_SUFFIXES = (".jsonl", ".jsonl.gz")


@dataclass(frozen=True)
class Limits:
    """The size limits of one check (tests pass smaller ones)."""

    file_bytes: int = MAX_FILE_BYTES
    decompressed_bytes: int = MAX_DECOMPRESSED_BYTES
    line_bytes: int = MAX_LINE_BYTES


DEFAULT_LIMITS = Limits()


def submission_entries(folder: Path) -> tuple[list[Path], list[str]]:
    """The plain files directly in a submission folder, and one problem line for each thing
    refused: a bad slug, a link, a sub-folder, a special file, anything resolving outside it."""
    problems = []
    if folder.is_symlink():
        return [], [f"{folder.name}: the submission folder is a symbolic link"]
    if not folder.is_dir():
        return [], [f"{folder.name}: not a folder"]
    if not SLUG.fullmatch(folder.name):
        problems.append(
            f"{folder.name!r}: a submission folder's name (its slug) must be 1-64 characters "
            "of a-z, 0-9, '-' and '_', starting with a letter or digit"
        )
    root = folder.resolve()
    files = []
    for entry in sorted(folder.iterdir()):
        mode = entry.lstat().st_mode
        if stat.S_ISLNK(mode):
            problems.append(f"{entry.name}: a symbolic link (only plain files are read)")
        elif stat.S_ISDIR(mode):
            problems.append(f"{entry.name}: a folder inside the submission (only files are read)")
        elif not stat.S_ISREG(mode):
            problems.append(f"{entry.name}: not a plain file")
        elif entry.resolve().parent != root:
            problems.append(f"{entry.name}: resolves outside the submission folder")
        else:
            files.append(entry)
    return files, problems


def read_small_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    """A small text file (submission.yaml), refused over `limit` bytes or if not UTF-8."""
    with open(path, "rb") as handle:
        content = handle.read(limit + 1)
    if len(content) > limit:
        raise KluebookError(f"{path.name}: larger than {limit} bytes")
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise KluebookError(f"{path.name}: not UTF-8 text ({error.reason})") from error


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


class _Capped:
    """A binary stream's lines, refused once the bytes read pass a cap."""

    def __init__(self, handle, name: str, cap: int, line_bytes: int):
        self.handle, self.name, self.cap, self.line_bytes = handle, name, cap, line_bytes
        self.total = 0

    def lines(self) -> Iterator[bytes]:
        while True:
            line = self.handle.readline(self.line_bytes + 1)
            if not line:
                return
            self.total += len(line)
            if self.total > self.cap:
                raise KluebookError(f"{self.name}: more than {self.cap} bytes once decompressed")
            if len(line) > self.line_bytes:
                raise KluebookError(f"{self.name}: a line longer than {self.line_bytes} bytes")
            yield line


def prediction_lines(path: Path, limits: Limits = DEFAULT_LIMITS) -> Iterator[tuple[int, dict]]:
    """(line number, object) of a JSON Lines file, `.gz` decompressed on the fly; blank lines
    skipped. A file over the limits, a line that is not a JSON object, NaN or an infinity is a
    one-line error naming the file and line."""
    return json_lines(path, limits)


def json_lines(
    path: Path, limits: Limits = DEFAULT_LIMITS, allow_constants: bool = False
) -> Iterator[tuple[int, dict]]:
    """`prediction_lines`, reading NaN and infinities where `allow_constants` (another tool's
    log, whose log-likelihoods may be -Infinity)."""
    constant = {} if allow_constants else {"parse_constant": _refuse_constant}
    size = path.stat().st_size
    if size > limits.file_bytes:
        raise KluebookError(f"{path.name}: {size} bytes, over the limit of {limits.file_bytes}")
    compressed = path.name.endswith(".gz")
    cap = limits.decompressed_bytes if compressed else limits.file_bytes
    opener = gzip.open if compressed else open
    try:
        with opener(path, "rb") as handle:
            for number, raw in enumerate(
                _Capped(handle, path.name, cap, limits.line_bytes).lines(), 1
            ):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw.decode("utf-8"), **constant)
                except UnicodeDecodeError as error:
                    raise KluebookError(
                        f"{path.name}:{number}: not UTF-8 ({error.reason})"
                    ) from error
                except ValueError as error:  # JSONDecodeError too
                    message = getattr(error, "msg", str(error))
                    raise KluebookError(
                        f"{path.name}:{number}: not valid JSON ({message})"
                    ) from error
                if not isinstance(row, dict):
                    raise KluebookError(f"{path.name}:{number}: expected a JSON object")
                yield number, row
    except (OSError, EOFError, zlib.error) as error:  # gzip.BadGzipFile is an OSError
        raise KluebookError(f"{path.name}: cannot read ({type(error).__name__})") from error
