"""Interactive tables (itables, DataTables) over plain HTML tables, and the one copy of the
DataTables bundle they load, a shared static file of the built site.

Without JavaScript the reader gets the plain table, readable as it is. With it, DataTables takes
over the table itself, or, where the interactive table differs from the plain one (the KLUE
table's blocks are rows of headings in the plain table, a column of the interactive one),
itables' own swap shows it in place of the plain one (`html_table_from_template`). The bundle
is loaded from `_static/itables/` of the site, where `copy_bundle` (a Sphinx `build-finished`
hook) puts the copy installed with itables: every page loads the same file, never a copy of its
own, and nothing comes from another server."""

import posixpath
import re
import shutil
from pathlib import Path

import itables
from itables.javascript import html_table_from_template
from markupsafe import Markup

# Where the bundle is in the built site, and where itables installs it.
BUNDLE_DIR = "_static/itables"
INSTALLED = Path(itables.__file__).parent / "html"
BUNDLE_FILES = ("dt_bundle.js", "dt_bundle.css")
# DataTables' texts of its controls, each with a space at its ends: they read apart in the
# page's text, a copy's or a screen reader's ("entries per page Search:", never
# "entries per pageSearch:").
LANGUAGE = {
    "lengthMenu": "_MENU_ entries per page ",
    "search": " Search: ",
    "info": " Showing _START_ to _END_ of _TOTAL_ _ENTRIES-TOTAL_ ",
    "infoEmpty": " Showing 0 to 0 of 0 _ENTRIES-TOTAL_ ",
    "infoFiltered": " (filtered from _MAX_ total _ENTRIES-MAX_) ",
    "searchBuilder": {"title": {"0": "Custom Search Builder ", "_": "Custom Search Builder (%d) "}},
}
# itables' loading notice, the body of its table until the script fills it.
LOADING = re.compile(r"<tbody>\s*<tr>\s*<td[^>]*>.*?Loading ITables.*?</tbody>", re.DOTALL)


def bundle_url(page: str) -> str:
    """The bundle's script, relative to the page (a docname of the built site)."""
    return posixpath.relpath(f"{BUNDLE_DIR}/dt_bundle.js", posixpath.dirname(page) or ".")


def datatable(table_id: str, inner: str, fallback: str, page: str, options: dict) -> Markup:
    """An interactive table whose rows are `inner` (its caption, thead and tbody), with the
    DataTables `options`, shown in place of the plain `fallback` table once the bundle has
    loaded; without a fallback ("") the table itself is the plain one until then. No blank line,
    so Markdown keeps it one HTML block."""
    arguments = {"classes": [], "style": {}, "language": LANGUAGE, **options}
    html = html_table_from_template(
        table_id=table_id,
        dt_url=bundle_url(page),
        connected=True,
        display_logo_when_loading=False,
        kwargs=arguments,
        fallback_html=fallback,
    )
    # The interactive table holds its rows in the page (DataTables reads them there), where
    # itables puts a loading notice and the rows in the script: no third copy of the table.
    html = LOADING.sub(lambda _: inner, html, count=1)
    # Markup: itables' template around rows and a fallback that are markup of the templates.
    return Markup("\n".join(line for line in html.splitlines() if line.strip()))


def copy_bundle(app, exception) -> None:
    """`build-finished` handler: the DataTables bundle into the site's `_static/itables/`."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / BUNDLE_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name in BUNDLE_FILES:
        shutil.copyfile(INSTALLED / name, target / name)
