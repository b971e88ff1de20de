"""KLUE's JSON layout of a list of records, read and written by the sentence-level tasks."""

from collections.abc import Iterable, Sequence
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_json, write_json


def read_record_list(path: str | Path, kind: str, items: str, fields: Sequence[str]) -> list:
    """The items of a file that is a JSON list of objects, each holding `fields`; if it is not,
    a one-line error names the file, its `kind` (`KLUE-XX`), what it lists (`pairs`) and the
    first record at fault."""
    data = read_json(path)
    if not isinstance(data, list):
        raise KluebookError(f"{path}: not a {kind} file (expected a JSON list of {items})")
    for position, item in enumerate(data):
        if not isinstance(item, dict) or not set(fields) <= item.keys():
            listed = f"{', '.join(fields[:-1])} or {fields[-1]}"
            raise KluebookError(f"{path}: not a {kind} file (record {position} lacks {listed})")
    return data


def write_record_list(records: Iterable[dict], path: str | Path) -> None:
    """Records written as a JSON list, fields as given."""
    write_json(path, [dict(record) for record in records])
