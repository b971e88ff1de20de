"""A run page's dev items: the item browser (`kluebook.book.item_browser`) of every dev item,
and the downloads beside it: the items as JSON Lines, CSV and (where pyarrow is installed)
Parquet, and the run's record.

The downloads are written among the generated pages (`_generated/predictions/<task>/`), named
after the run's page; the run page and the results page link them (`download_links`).
"""

import importlib.util
import json
from pathlib import Path

import nbformat

from kluebook.book import myst
from kluebook.book.item_browser import browser_html
from kluebook.common.json_files import write_text_if_changed
from kluebook.common.paths import GENERATED, ROOT
from kluebook.recording.records import RunRecord
from kluebook.results.items import COLLAPSED, Items, jsonl_text, run_items
from kluebook.tasks import Task

# The downloads of a run: what each holds, by the end of its file name.
FORMATS = {
    "predictions.jsonl": "JSON Lines",
    "predictions.csv": "CSV",
    "predictions.parquet": "Parquet",
    "record.json": "the run's record",
}
TABLE_ID = "items"


def has_parquet() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


def download_paths(record: RunRecord, root: Path = ROOT) -> dict[str, Path]:
    """Where the downloads of a run with a page are, by format (Parquet only with pyarrow)."""
    folder = root / GENERATED.relative_to(ROOT) / "predictions" / record.task
    stem = Path(record.notebook).stem
    names = [n for n in FORMATS if n != "predictions.parquet" or has_parquet()]
    return {name: folder / f"{stem}.{name}" for name in names}


def write_downloads(record: RunRecord, items: Items, root: Path = ROOT) -> dict[str, Path]:
    """Write a run's downloads (unchanged files are left as they are); return their paths."""
    paths = download_paths(record, root)
    frame = items.frame
    texts = {
        "predictions.jsonl": jsonl_text(frame),
        "predictions.csv": frame.to_csv(index=False),
        "record.json": json.dumps(record.as_dict(), ensure_ascii=False, indent=2) + "\n",
    }
    for name, text in texts.items():
        write_text_if_changed(paths[name], text)
    if "predictions.parquet" in paths:
        frame.to_parquet(paths["predictions.parquet"], index=False)
    return paths


def download_links(record: RunRecord, root: Path = ROOT) -> str:
    """The run's downloads as MyST `{download}` links, on one line (empty when none exist)."""
    paths = {k: p for k, p in download_paths(record, root).items() if p.is_file()}
    return " · ".join(
        f"{{download}}`{FORMATS[name]} </{path.relative_to(root).as_posix()}>`"
        for name, path in paths.items()
    )


def items_section(task: Task, record: RunRecord, root: Path = ROOT) -> list:
    """The cells of a run page's "Dev items" section: what the table holds, the downloads, then
    the item browser (a hidden code cell whose output is the table); none for a run that kept
    no predictions."""
    items = run_items(task, record, root)
    if items is None:
        return []
    write_downloads(record, items, root)
    frame = items.frame
    count = len(frame)
    has = {name: name in frame for name in ("confidence", "top_answers", "prompt", "raw_answer")}
    collapsed = [name.replace("_", " ") for name in ("prompt", "raw_answer") if has[name]]
    gold = (
        f"The gold and the text could not be read here ({myst.text(items.missing_gold)}): the "
        "table holds the predictions alone."
        if items.missing_gold
        else "Each has its text, its gold, the prediction and whether it is right (`correct`, "
        "as `kluebook compare` counts an item right for its paired test)"
        + (", the model's confidence in it" if has["confidence"] else "")
        + (", the answers it ranked highest (`top_answers`)" if has["top_answers"] else "")
        + (
            ", the model's raw answer and whether it could be read (`unparsable`)"
            if has["raw_answer"]
            else ""
        )
        + "."
        + (
            " An item's prompt is the run's shared opening (the instruction and the "
            "demonstrations, as in the first prompt printed above) followed by the item's own "
            "block, its `prompt` here."
            if has["prompt"]
            else ""
        )
        + (
            f" The {' and the '.join(collapsed)} {'are' if len(collapsed) > 1 else 'is'} "
            "collapsed: open one to read it with its line breaks."
            if collapsed
            else ""
        )
    )
    about = (
        f"## Dev items\n\nAll {count:,} dev items of this run. {gold} Search over every "
        "column, sort by a column, or filter with *Add condition* (wrong items only: "
        "`correct` equals `no`; a gold or predicted label; a source; a confidence range; "
        "a prompted run's unparsable answers). "
        "Each item's key is a link to it, and the address follows the view, so a filtered "
        "view can be shared as a link. Texts longer than the cells are cut; the downloads "
        f"hold them whole.\n\nDownloads: {download_links(record, root)}\n"
    )
    table = browser_html(
        items.frame,
        TABLE_ID,
        Path(record.notebook).with_suffix("").as_posix(),
        f"The {count:,} dev items of this run",
        COLLAPSED,
    )
    # Cell ids of their own: a page is the same bytes from one rendering to the next.
    # A code cell without source would be left out of the page: its source is hidden.
    source = "# The item browser of this run's dev items (kluebook.book.run_items)"
    cell = nbformat.v4.new_code_cell(source, id="dev-items-table")
    cell.metadata["tags"] = ["remove-input"]
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": table})]
    return [nbformat.v4.new_markdown_cell(about, id="dev-items"), cell]
