"""KLUE's TSV layout of sentence blocks, read and written by the token-level tasks."""

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_text_atomic


@dataclass(frozen=True)
class SentenceBlock:
    """One sentence of a KLUE TSV file: its guid, its text and its item lines (one per character
    or eojeol), the first of them on line `first_line` of the file where it was read."""

    guid: str
    sentence: str
    items: Sequence[str]
    first_line: int = 0


def read_sentence_blocks(path: str | Path, columns: str, task: str) -> Iterator[SentenceBlock]:
    """Each sentence of a KLUE TSV file.

    The file starts with 5 `##` header lines, the last naming the `columns`; each sentence is a
    line `## <guid><TAB><sentence>` followed by its item lines; a blank line ends it.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
    except (OSError, UnicodeDecodeError) as error:
        raise KluebookError(f"cannot read {path}: {error}") from error
    if len(lines) < 5 or not all(line.startswith("##") for line in lines[:5]):
        raise KluebookError(f"{path}: not a {task} file (expected 5 '##' header lines)")
    if not lines[4].endswith(columns):
        raise KluebookError(f"{path}: not a {task} file (header does not name {columns!r})")
    seen = set()
    numbered = [*enumerate(lines[5:], start=6), (len(lines) + 1, "")]
    block: list[tuple[int, str]] = []
    for number, line in numbered:
        if line:
            block.append((number, line))
            continue
        if not block:
            continue
        first, header = block[0]
        guid, tab, sentence = header[3:].partition("\t")
        if not header.startswith("## ") or not tab or not guid:
            raise KluebookError(
                f"{path}:{first}: expected '## <guid><TAB><sentence>', got {header!r}"
            )
        if guid in seen:
            raise KluebookError(f"{path}:{first}: duplicate guid {guid}")
        if len(block) == 1:
            raise KluebookError(f"{path}:{first}: {guid}: sentence without items")
        seen.add(guid)
        yield SentenceBlock(guid, sentence, [line for _, line in block[1:]], first + 1)
        block = []


def write_sentence_blocks(
    path: str | Path, header: Sequence[str], blocks: Iterable[SentenceBlock]
) -> None:
    """A KLUE TSV file: the `header` lines, then each sentence as a block."""
    lines = list(header)
    for block in blocks:
        lines.append(f"## {block.guid}\t{block.sentence}")
        lines.extend(block.items)
        lines.append("")
    write_text_atomic(path, "\n".join(lines) + "\n")
