"""A data erratum as edits of the official records: in one item (its guid), one field, the
slice that starts at `at` changes from `old` to `new`. Edits are small facts, never a copy of a
KLUE file, and are applied only where each old value is found where its edit says."""

import copy
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_text_if_changed


class Edit(BaseModel):
    """`record[field][at:at + len(old)]`, `old`, becomes `new` (a list field's items, or text)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    guid: str
    field: str
    at: int
    old: list | str
    new: list | str


def edits_between(
    before: Sequence[dict], after: Sequence[dict], fields: Sequence[str]
) -> list[Edit]:
    """The edits that turn the records `before` into `after` (the same items, by guid) in
    `fields`, smallest first: each changed run of a field's items or characters."""
    by_guid = {record["guid"]: record for record in after}
    if set(by_guid) != {record["guid"] for record in before}:
        raise KluebookError("the two files hold different items: edits change fields, not items")
    edits = []
    for record in before:
        changed = by_guid[record["guid"]]
        for field in fields:
            old, new = record[field], changed[field]
            edits += [
                Edit(guid=record["guid"], field=field, at=i1, old=old[i1:i2], new=new[j1:j2])
                for i1, i2, j1, j2 in _changed_runs(old, new)
            ]
    return edits


def _changed_runs(old, new) -> list[tuple[int, int, int, int]]:
    """(i1, i2, j1, j2) of each run of `old[i1:i2]` that `new[j1:j2]` replaces: position by
    position where the lengths agree (relabelled items), else by the longest matching blocks."""
    if len(old) == len(new):
        different = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
        runs, start = [], None
        for position, i in enumerate(different):
            start = i if start is None else start
            if position + 1 == len(different) or different[position + 1] != i + 1:
                runs.append((start, i + 1, start, i + 1))
                start = None
        return runs
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    return [(i1, i2, j1, j2) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"]


def apply_edits(
    records: Sequence[dict], edits: Iterable[Edit], name: str, present_only: bool = False
) -> list[dict]:
    """`records` with `edits` applied (copies; the records given are left as they are). An edit
    whose item is missing (unless `present_only`: the records are part of the file, a run's
    dev limit) or whose old value is not where it says refuses the whole erratum `name`, in one
    line."""
    by_item: dict[tuple[str, str], list[Edit]] = defaultdict(list)
    for edit in edits:
        by_item[edit.guid, edit.field].append(edit)
    index = {record["guid"]: position for position, record in enumerate(records)}
    corrected = list(records)
    for (guid, field), item_edits in by_item.items():
        if guid not in index:
            if present_only:
                continue
            raise KluebookError(f"erratum {name}: item {guid} is not in these records")
        record = copy.deepcopy(corrected[index[guid]])
        value = record[field]
        for edit in sorted(item_edits, key=lambda e: e.at, reverse=True):  # later slices first
            old = edit.old if isinstance(value, str) else list(edit.old)
            if value[edit.at : edit.at + len(old)] != old:
                raise KluebookError(
                    f"erratum {name}: {guid} {field}[{edit.at}] is not {edit.old!r}: refused "
                    "(these records are not the file it was made for)"
                )
            new = edit.new if isinstance(value, str) else list(edit.new)
            value = value[: edit.at] + new + value[edit.at + len(old) :]
        record[field] = value
        corrected[index[guid]] = record
    return corrected


def read_edits(path: Path) -> list[Edit]:
    """The edits of a JSON Lines file, each validated; a bad line is named in one line."""
    edits = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            edits.append(Edit.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as error:
            reason = str(error).splitlines()[0]
            raise KluebookError(f"{path.name}:{number}: not an edit ({reason})") from None
    return edits


def write_edits(path: Path, edits: Iterable[Edit]) -> None:
    lines = [json.dumps(e.model_dump(), ensure_ascii=False, separators=(",", ":")) for e in edits]
    write_text_if_changed(path, "".join(f"{line}\n" for line in lines))
