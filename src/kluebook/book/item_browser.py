"""An item browser: a DataFrame of items as an interactive table on a page of the site.

The table is DataTables through itables, never hand-written table code: search over every
column, sorting, pagination and a SearchBuilder ("Add condition") for filters such as wrong
items only, a gold or predicted label, a source or a confidence range. DataTables' library
(itables' `dt_for_itables` bundle) is one shared file of the site, `_static/itables/`, that the
Sphinx extension copies from the installed itables (`kluebook.book.table_assets`); a page holds
only its items. Without JavaScript the page shows itables' static preview, a plain table of the
first items, and the caption says where every item is (the downloads).

Long texts (a prompted run's prompt and raw answer) are collapsed in their cells: a `<details>`
disclosure whose summary is the text's opening, opened by click or keyboard to the whole text
with its line breaks (the summary then says only "hide", so the opening is not read twice).

Each item's key links to itself, `<page>#item-<key>`; `_static/kluebook-items.js` opens the
table on the item such a link names and keeps the address in step with the table's search,
filters, order and page (`#items=…`), so a filtered view can be shared as a link.

`browser_html(frame, table_id, page, caption)` is the whole interface: `frame` has a `guid`
column (the items' keys), `page` is the docname of the page the table is on.
"""

import posixpath
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
from itables import to_html_datatable
from markupsafe import Markup

from kluebook.book.table_assets import LANGUAGE, bundle_url
from kluebook.book.templating import parts

# Characters of one text shown in a cell (the downloads keep the whole text), and of a
# collapsed text's summary.
TEXT_LIMIT = 300
SUMMARY_LIMIT = 40
# Items on one page of the table, and the page sizes a reader may choose.
PAGE_LENGTH = 10
LENGTHS = [10, 25, 100, 500]
# Where the site keeps the address-keeping script, from its root.
ADDRESS_SCRIPT = "_static/kluebook-items.js"
# The browser's HTML: its cells and its frame.
TEMPLATE = "item_browser.html"


def spread(positions: Sequence[int], count: int) -> list[int]:
    """`count` of `positions` spread evenly over them, in their order (all where there are no
    more): a sample that is the same from one build to the next."""
    if len(positions) <= count:
        return list(positions)
    return [positions[i * len(positions) // count] for i in range(max(count, 0))]


def items_first(first: Sequence[int], rest: Sequence[int], count: int) -> list[int]:
    """At most `count` item positions, in order: the `first` ones (those that matter; spread
    evenly over them where there are more), then in the room left a sample of the `rest`."""
    chosen = spread(first, count)
    return sorted(chosen + spread(rest, count - len(chosen)))


def item_anchor(key: str) -> str:
    """The anchor of an item on its page: `item-` and its key, spaces and the like as `-`."""
    return "item-" + re.sub(r"[^\w.-]+", "-", key)


def _cell(value) -> Markup:
    """A text cell, escaped and cut to `TEXT_LIMIT` characters, its line breaks kept."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return Markup("")
    text = str(value)
    text = text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + "…"
    return parts(TEMPLATE).text_cell(text)


def _collapsed(value) -> Markup:
    """A long text cell as a disclosure: its opening, on one line, as the summary; opened, the
    whole text with its line breaks, and the summary says only that it hides it again."""
    text = "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)
    if len(text) <= SUMMARY_LIMIT:
        return _cell(text)
    cut = text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + "…"
    opening = " ".join(text[: SUMMARY_LIMIT - 1].split()) + "…"
    return parts(TEMPLATE).collapsed(opening, cut)


def _yes_or_no(column: pd.Series) -> bool:
    """Whether a column holds truth values (and perhaps gaps)."""
    values = column.dropna()
    return not values.empty and values.map(lambda v: isinstance(v, bool | np.bool_)).all()


def _shown(frame: pd.DataFrame, collapsed: tuple[str, ...]) -> pd.DataFrame:
    """The items as the table shows them: each key a link to the item, yes/no columns as such,
    texts escaped (the table renders HTML), the `collapsed` ones as disclosures, numbers as
    they are."""
    shown = pd.DataFrame(index=frame.index)
    for name in frame.columns:
        column = frame[name]
        if name in collapsed:
            shown[name] = column.map(_collapsed)
        elif name == "guid":
            shown[name] = [parts(TEMPLATE).item_key(k, item_anchor(k)) for k in column]
        elif _yes_or_no(column):
            shown[name] = column.map({True: "yes", False: "no"}).fillna("")
        elif pd.api.types.is_numeric_dtype(column):
            shown[name] = column
        else:
            shown[name] = column.map(_cell)
    return shown


def browser_html(
    frame: pd.DataFrame, table_id: str, page: str, caption: str, collapsed: tuple[str, ...] = ()
) -> str:
    """The items of `frame` as an item browser (see the module's docstring) for the page whose
    docname is `page`; `caption` names the table (screen readers announce it); the texts of the
    `collapsed` columns open on demand (their summary is their opening)."""
    up = posixpath.relpath(".", posixpath.dirname(page) or ".")
    table = to_html_datatable(
        _shown(frame, collapsed).reset_index(drop=True),
        caption=caption,
        table_id=table_id,
        connected=True,
        dt_url=bundle_url(page),
        allow_html=True,
        showIndex=False,
        maxBytes=0,
        classes="display compact",
        style="width:100%",
        layout={"top1": "searchBuilder"},
        language=LANGUAGE,
        pageLength=PAGE_LENGTH,
        lengthMenu=LENGTHS,
        deferRender=True,
        format_floats_in_python=False,
        autoWidth=False,
        display_logo_when_loading=False,
        text_in_header_can_be_selected=False,
    )
    # itables' static preview closes with its caption in a footer row: a <caption> names it.
    fallback = re.compile(rf'(<div id="{table_id}_fallback"><table[^>]*>)')
    named = parts(TEMPLATE).caption(caption)
    table, found = fallback.subn(lambda start: start.group(1) + str(named), table, 1)
    if not found:
        raise ValueError("itables wrote no static preview to caption")
    # Markup: itables' table of cells the template made (`_shown`).
    script = posixpath.join(up, ADDRESS_SCRIPT)
    return str(parts(TEMPLATE).browser(script, Markup(table))) + "\n"
