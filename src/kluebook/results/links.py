"""Where the generated pages are in the built site (their docnames), and the relative links
between them."""

import posixpath
from pathlib import Path
from urllib.parse import quote

from kluebook.common.paths import ROOT
from kluebook.recording.records import RunRecord
from kluebook.tasks import Task

# The page the results table is on, the status and errata pages, and where the generated task
# pages are (docnames).
RESULTS_PAGE = "book/results"
STATUS_PAGE = "book/status"
ERRATA_PAGE = "book/errata"
TASK_PAGES = "book/_generated/tasks"
METHODS_PAGES = "book/_generated/methods"
# The id of the item browser's section on a run page: where a table cell's seed links to.
ITEMS_ANCHOR = "items"


def task_page(task: Task) -> str:
    return f"{TASK_PAGES}/{task.name}"


def methods_page(task: Task) -> str:
    return f"{METHODS_PAGES}/{task.name}"


def run_page(record: RunRecord, root: Path = ROOT) -> str | None:
    """The docname of a run's executed notebook, or None when the book has no page for it."""
    notebook = record.notebook
    if not notebook or not (root / notebook).is_file():
        return None
    return notebook.removesuffix(".ipynb")


def href(from_page: str, to_page: str, anchor: str = "") -> str:
    """A link from one page of the built site to another (both docnames), relative; the path
    percent-encoded as Sphinx encodes its own links (a run page's commas as %2C), so that a
    page has one address whichever link a reader followed. A URL, not HTML: the book's
    templates escape it where they write it."""
    target = quote(posixpath.relpath(f"{to_page}.html", posixpath.dirname(from_page) or "."))
    return target + (f"#{anchor}" if anchor else "")
