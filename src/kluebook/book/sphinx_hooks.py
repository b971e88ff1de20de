"""A Sphinx extension of the book: launch buttons that open a task's source notebook,
exercise labels that stay unique when a task has several executed runs, and DataTables' library
for the item browsers.

Launch buttons. sphinx-book-theme builds its launch links from the page's own path, and the
notebook pages of this book are executed runs under `book/runs/<task>/`: files the runner writes,
most of them never committed, and not the notebook a student should start from. This hook, run
after the theme's, points the launch buttons of every page of a task (its run pages and its
methods page) at `notebooks/<task>.ipynb` (a prompted run's at `notebooks/prompted.ipynb`, the
notebook that made it: the report's index of the run pages says which run a page shows,
`run_index`) in the repository (`repository` and `launch_buttons`
in `_config.yml`), and removes them from a page whose task has no such notebook in the book's
sources.

Exercise labels. Each task notebook ends with sphinx-exercise exercises labelled `ex-<task>-<n>`,
and their solutions name those labels. Every executed run of the task repeats them, and Sphinx
labels must be unique in the book: when a run page is read, its labels get a prefix of its own.

Interactive tables. The KLUE table, the side-by-side tables and the run pages' item browsers
load the DataTables bundle from one copy in the site (`table_assets.copy_bundle`).
"""

import hashlib
import re
from pathlib import Path
from urllib.parse import quote

from kluebook.book.run_index import read_run_index
from kluebook.book.table_assets import copy_bundle
from kluebook.methods.registry import DEFAULT_METHOD, method_named
from kluebook.tasks import all_tasks

# A task's pages: its executed runs and its methods page (written by kluebook.book.pages).
TASK_PAGE = re.compile(
    r"book/(?:runs/(?P<run>[\w-]+)/[^/]+|_generated/methods/(?P<methods>[\w-]+))"
)
INTERFACES = {"classic": "tree", "jupyterlab": "lab/tree"}


def task_of(pagename: str) -> str | None:
    """The task a page belongs to, or None for the book's other pages."""
    match = TASK_PAGE.fullmatch(pagename)
    return (match.group("run") or match.group("methods")) if match else None


def launch_links(theme_options: dict, notebook: str) -> list[dict]:
    """Theme buttons that open `notebook` (a path in the repository) on Binder and Colab."""
    launch = theme_options.get("launch_buttons") or {}
    repository = (theme_options.get("repository_url") or "").rstrip("/")
    branch = theme_options.get("repository_branch") or "main"
    match = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)(?:\.git)?", repository)
    if match is None:
        return []
    org, repo = match.groups()
    buttons = []
    binderhub = (launch.get("binderhub_url") or "").rstrip("/")
    if binderhub:
        interface = INTERFACES[launch.get("notebook_interface", "classic")]
        buttons.append(
            {
                "type": "link",
                "text": "Binder",
                "tooltip": "Launch on Binder",
                "icon": "_static/images/logo_binder.svg",
                "url": f"{binderhub}/v2/gh/{org}/{repo}/{quote(branch)}"
                f"?urlpath={interface}/{notebook}",
            }
        )
    colab = (launch.get("colab_url") or "").rstrip("/")
    if colab:
        buttons.append(
            {
                "type": "link",
                "text": "Colab",
                "tooltip": "Launch on Colab",
                "icon": "_static/images/logo_colab.png",
                "url": f"{colab}/github/{org}/{repo}/blob/{quote(branch)}/{notebook}",
            }
        )
    return buttons


def point_launch_buttons(app, pagename, templatename, context, doctree) -> None:
    """`html-page-context` handler: launch buttons of a task's pages open its source notebook."""
    name = task_of(pagename)
    buttons = context.get("header_buttons")
    if name is None or buttons is None:
        return
    theirs = [b for b in buttons if b.get("label") == "launch-buttons"]
    for group in theirs:
        buttons.remove(group)
    task = all_tasks().get(name)
    if task is None:  # a page of no registered task: no notebook to open
        return
    run = read_run_index(Path(app.srcdir)).get(pagename)
    # The notebook that made the page's run (a task page: its task's own).
    method = method_named(run.method if run is not None else DEFAULT_METHOD)
    notebook = f"notebooks/{method.notebook(task).name}"
    links = launch_links(app.config.html_theme_options, notebook)
    if not links or not (Path(app.srcdir) / notebook).is_file():
        return
    group = {
        "type": "group",
        "tooltip": f"Open {notebook} on Binder or Colab",
        "icon": "fas fa-rocket",
        "buttons": links,
        "label": "launch-buttons",
    }
    buttons.insert(0, group)


def run_page_labels(docname: str, text: str) -> str:
    """`text` of a page with its exercise labels made unique to the page (run pages only)."""
    task = task_of(docname)
    if task is None or not docname.startswith("book/runs/"):
        return text
    prefix = hashlib.sha256(docname.encode()).hexdigest()[:8]
    # Any task's labels: a task folder copied from another keeps the labels of its notebook.
    label = re.compile(r"(?<![\w-])(ex-[a-z0-9_]+-\d+)(?![\w-])")
    return label.sub(rf"run{prefix}-\1", text)


def unique_exercise_labels(app, docname, source) -> None:
    """`source-read` handler: see run_page_labels."""
    source[0] = run_page_labels(docname, source[0])


def setup(app):
    app.connect("source-read", unique_exercise_labels)
    # After sphinx-book-theme's own launch buttons (priority 501).
    app.connect("html-page-context", point_launch_buttons, priority=600)
    app.connect("build-finished", copy_bundle)  # the interactive tables' DataTables
    return {"parallel_read_safe": True, "parallel_write_safe": True}
