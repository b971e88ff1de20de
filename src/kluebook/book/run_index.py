"""Which run each run page of the book shows, from the records: an index the report writes
beside the generated pages (`book/_generated/run_pages.json`: a page's docname, its run's task,
profile and method), which the Sphinx extensions read, so that no part of the build reads a
run's identity back out of its page's address."""

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from kluebook.common.json_files import write_text_if_changed
from kluebook.common.paths import GENERATED, ROOT
from kluebook.recording.records import RunRecord
from kluebook.results.links import run_page

# The index, in the generated pages' folder (relative to the book root, where Sphinx finds it).
INDEX = GENERATED.relative_to(ROOT) / "run_pages.json"


@dataclass(frozen=True)
class PageRun:
    """The run a page shows: what the build needs to know of it."""

    task: str
    profile: str
    method: str


def run_index(records: list[RunRecord], root: Path = ROOT) -> dict[str, PageRun]:
    """The run of each run page the book has (its docname), from the records that made them."""
    pages = {}
    for record in records:
        docname = run_page(record, root) if record.outcome is not None else None
        if docname:
            pages[docname] = PageRun(record.task, record.profile, record.method)
    return dict(sorted(pages.items()))


def write_run_index(records: list[RunRecord], out_dir: Path = GENERATED, root: Path = ROOT) -> Path:
    """Write the index of the run pages of the book at `root` into `out_dir` (the generated
    pages' folder)."""
    path = out_dir / INDEX.name
    index = {docname: asdict(run) for docname, run in run_index(records, root).items()}
    write_text_if_changed(path, json.dumps(index, ensure_ascii=False, indent=1) + "\n")
    return path


def read_run_index(root: Path) -> dict[str, PageRun]:
    """The index of the book at `root` (empty before any report has written one)."""
    path = root / INDEX
    if not path.is_file():
        return {}
    return {
        docname: PageRun(**run)
        for docname, run in json.loads(path.read_text(encoding="utf-8")).items()
    }
