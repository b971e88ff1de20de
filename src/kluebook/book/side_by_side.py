"""A task page's side-by-side view: for each dev set the task's runs scored, pick any two of its
runs (A and B) and see the 2x2 table of the items each gets right (`results.agreement`, the
items `kluebook compare` pairs) and the items on which one is right and the other wrong, with
the gold and both predictions.

The page holds, per dev set, one compact JSON block: each run's name and page, and for every
item some run gets wrong its key, gold, and each run's prediction and rightness (texts stored
once, runs pointing at them). `_static/kluebook-side-by-side.js` turns the two run pickers into
the counts and the list of their disagreements (or of the items both get wrong), and keeps the
pick in the address (`#<section id>=<a>,<b>`, run numbers from 1, then `,both-wrong` for that
list) so a pair can be shared as a link. Without JavaScript the section shows the first pair's
counts and its whole list as plain tables, and the 2x2 table of every pair. Its HTML is the
template `side_by_side.html` (`templating`; the JSON block through Jinja2's `tojson`)."""

import posixpath
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from markupsafe import Markup

from kluebook.book import myst
from kluebook.book.item_browser import item_anchor
from kluebook.book.table_assets import datatable
from kluebook.book.templating import parts
from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl
from kluebook.common.paths import ROOT
from kluebook.recording.records import RunRecord
from kluebook.results.aggregation import run_configuration
from kluebook.results.agreement import (
    Agreement,
    DevSetAgreement,
    RunAnswers,
    dev_set_agreement,
)
from kluebook.results.compare import record_gold
from kluebook.results.items import key_text
from kluebook.results.links import ITEMS_ANCHOR, href, run_page
from kluebook.results.pooling import code_today, configuration_key, pooled
from kluebook.scoring.predictions import index_predictions
from kluebook.tasks import Task
from kluebook.training.recipes import record_switches

SCRIPT = "_static/kluebook-side-by-side.js"
# The view's HTML.
TEMPLATE = "side_by_side.html"
# The interactive list of one pair's disagreements.
ITEMS_OPTIONS = {"classes": ["klue-table", "disagreements"], "pageLength": 25, "autoWidth": False}
ITEMS_HEAD = ("Item", "Right", "Gold", "A predicted", "B predicted")
# What the list may hold (its select's options; the first is shown without JavaScript).
SHOWN_ITEMS = (("disagree", "on which they disagree"), ("both-wrong", "both get wrong"))


@dataclass(frozen=True)
class OfferedRun:
    """A run as the view names it, and the docname of its page (None where the book has none)."""

    name: str
    docname: str | None


@dataclass(frozen=True)
class DevSetRuns:
    """The runs of a task on one dev set that the view offers, with their items."""

    section: str  # the section's id, which the address names
    dev_items: str  # which dev items, in words
    runs: list[OfferedRun]
    items: DevSetAgreement
    default: tuple[int, int]  # the pair shown first (run indexes)


def run_name(record: RunRecord) -> str:
    config = run_configuration(record)
    return f"{record.model}, {record.profile}{f', {config}' if config else ''}, seed {record.seed}"


def offered_runs(task: Task, records: list[RunRecord]) -> list[list[tuple[RunRecord, str]]]:
    """The runs offered, by dev set, each with why it is stale ("" for a current one): the runs
    each configuration's table cell pools (current code, else the newest stale runs, as the
    cell shows them), configurations in the table's order, seeds in order."""
    mine = [r for r in records if r.task == task.name and r.outcome and r.predictions]
    groups: dict[tuple, list[RunRecord]] = defaultdict(list)
    for record in mine:
        groups[configuration_key(record)].append(record)
    today = code_today(mine)
    by_dev_set: dict[tuple, list[tuple[RunRecord, str]]] = defaultdict(list)
    for key in sorted(groups):
        chosen, stale = pooled(groups[key], today)
        for run in chosen:
            by_dev_set[run.dev_set].append((run, stale))
    return [runs for runs in by_dev_set.values() if len(runs) > 1]


def _default_pair(runs: list[RunRecord], items: DevSetAgreement) -> tuple[int, int]:
    """The first run and the first of another configuration (else the first's next seed),
    unless they agree on every item and another pair does not: then the first pair that
    disagrees, so the view opens on a list with items in it."""
    first = configuration_key(runs[0])
    preferred = (0, next((i for i, r in enumerate(runs) if configuration_key(r) != first), 1))
    pairs = [preferred, *combinations(range(len(runs)), 2)]
    return next((pair for pair in pairs if items.disagreements(*pair)), preferred)


def dev_set_runs(
    task: Task, runs: list[tuple[RunRecord, str]], section: str, root: Path
) -> tuple[DevSetRuns | None, int]:
    """The view of one dev set's runs (each with why it is stale), and how many runs are left
    out because their dev set or predictions cannot be read here (None when fewer than two are
    left). A stale run's name says so."""
    try:
        gold = record_gold(task, runs[0][0])
    except (KluebookError, OSError):
        return None, len(runs)
    kept, names, answers = [], [], []
    for run, stale in runs:
        try:
            predictions = index_predictions(task, gold, read_jsonl(root / run.predictions))
        except (KluebookError, OSError):
            continue
        kept.append(run)
        names.append(run_name(run) + (f" (stale: {stale} changed)" if stale else ""))
        answers.append(RunAnswers(predictions, record_switches(task, run.outcome.recipe)))
    if len(kept) < 2:
        return None, len(runs)
    limit = kept[0].parameters.get("dev_limit")
    dev_items = f"the first {limit} dev items" if limit else "every dev item"
    items = dev_set_agreement(task, gold, answers)
    view = DevSetRuns(
        section,
        f"{dev_items} ({kept[0].data_source} data)",
        [OfferedRun(name, run_page(run, root)) for run, name in zip(kept, names, strict=True)],
        items,
        _default_pair(kept, items),
    )
    return view, len(runs) - len(kept)


def _run_href(run: OfferedRun, page: str, anchor: str) -> str | None:
    return href(page, run.docname, anchor) if run.docname else None


def _run_link(run: OfferedRun, page: str) -> Markup:
    """A run's name, linked to its item browser where the book has its page."""
    return parts(TEMPLATE).run_link(run.name, _run_href(run, page, ITEMS_ANCHOR))


def counts_text(counts: Agreement) -> str:
    """The 2x2 table of a pair in words, its caption (the script writes the same one)."""
    return (
        f"Of the {counts.items} items: both right {counts.both}, only A right "
        f"{counts.only_a}, only B right {counts.only_b}, both wrong {counts.neither}."
    )


def view_data(view: DevSetRuns, page: str) -> dict:
    """What the script needs, compactly: the runs, the items some run gets wrong (key, anchor,
    gold), each run's rightness on them ("1"/"0" per item) and predictions, texts stored once
    (`texts`, referred to by their index)."""
    items = view.items
    texts: dict[str, int] = {}

    def text(value: str) -> int:
        return texts.setdefault(value, len(texts))

    shown = [i for i in range(len(items.keys)) if not all(r[i] for r in items.right)]
    rows = []
    for i in shown:
        key = key_text(items.keys[i])
        rows.append([key, item_anchor(key), text(items.gold[i])])
    runs = [
        {
            "name": run.name,
            "page": _run_href(run, page, "") or None,
            "right": "".join("1" if items.right[n][i] else "0" for i in shown),
            "predicted": [text(items.predicted[n][i]) for i in shown],
        }
        for n, run in enumerate(view.runs)
    ]
    return {"total": len(items.keys), "items": rows, "runs": runs, "texts": list(texts)}


def _option_texts(view: DevSetRuns) -> list[str]:
    """Each run's name in its picker: what tells it apart from the view's other runs first
    (seed, template, shots), then what they share, so a narrow picker cuts only the latter."""
    parts = [run.name.split(", ") for run in view.runs]
    shared = set.intersection(*(set(p) for p in parts))
    texts = []
    for mine in parts:
        own = ", ".join(p for p in mine if p not in shared)
        common = ", ".join(p for p in mine if p in shared)
        texts.append(f"{own} — {common}" if own and common else own or common)
    return texts


def disagreements_table(view: DevSetRuns, page: str) -> Markup:
    """The default pair's disagreements, an interactive table (plain without JavaScript); an
    item's key links to its row in the item browser of A's page."""
    a, b = view.default
    items = view.items
    rows = []
    for i in items.disagreements(a, b):
        key = key_text(items.keys[i])
        rows.append(
            (
                key,
                _run_href(view.runs[a], page, item_anchor(key)),
                "A" if items.right[a][i] else "B",
                *(items.gold[i], items.predicted[a][i], items.predicted[b][i]),
            )
        )
    inner = parts(TEMPLATE).disagreements(ITEMS_HEAD, rows)
    return datatable(f"{view.section}-items", inner, "", page, ITEMS_OPTIONS)


def view_html(view: DevSetRuns, page: str) -> str:
    """One dev set's pickers, counts, disagreements and every pair's counts (one HTML block)."""
    html = parts(TEMPLATE)
    a, b = view.default
    up = posixpath.relpath(".", posixpath.dirname(page) or ".")
    names = _option_texts(view)
    pickers = (
        html.picker(view.section, "A", names, a)
        + html.picker(view.section, "B", names, b)
        + html.shown_items(view.section, SHOWN_ITEMS)
    )
    counts = view.items.counts(a, b)
    every_pair = [
        (_run_link(view.runs[x], page), _run_link(view.runs[y], page), view.items.counts(x, y))
        for x, y in combinations(range(len(view.runs)), 2)
    ]
    shown = html.view(
        view.section,
        posixpath.join(up, SCRIPT),
        view_data(view, page),
        pickers,
        _run_link(view.runs[a], page),
        _run_link(view.runs[b], page),
        html.counts_table(counts, counts_text(counts)),
        disagreements_table(view, page),
        html.every_pair_table(every_pair),
    )
    return str(shown)  # into the task page's Markdown


def side_by_side(task: Task, records: list[RunRecord], page: str, root: Path = ROOT) -> str:
    """The section of a task page (Markdown with HTML blocks); "" when no dev set has two
    runs that can be read here."""
    views, left_out = [], 0
    for number, runs in enumerate(offered_runs(task, records), start=1):
        view, skipped = dev_set_runs(task, runs, f"side-by-side-{task.name}-{number}", root)
        left_out += skipped
        if view is not None:
            views.append(view)
    if not views:
        return ""
    skipped = (
        f" {left_out} run{'s' if left_out > 1 else ''} whose dev set or predictions cannot be "
        f"read here {'are' if left_out > 1 else 'is'} left out."
        if left_out
        else ""
    )
    text = [
        f"(side-by-side-{task.name})=\n## Side by side\n",
        "Pick two runs of this task on the same dev items, A and B: the counts are the 2x2 "
        "table `kluebook compare` prints for their predictions files, and the list holds every "
        "item on which one is right and the other wrong, with the gold and both predictions "
        "(an item's key opens it in A's item browser); the Items list can show instead the "
        "items both get wrong. The address keeps the pick, so a pair and its list can be "
        "shared as a link. An item is a gold record, paired as `kluebook compare` pairs "
        "them for its paired test, and it is right when it counts as right in every metric "
        "that counts items (all its gold keys right for accuracy, EM or JGA; nothing missed "
        "and nothing extra for an F1). The runs offered are those the results table pools "
        f"(current code), on the dev set they scored.{skipped} Without JavaScript the first "
        "pair is shown.\n",
    ]
    for view in views:
        if len(views) > 1:
            text.append(f"### {len(view.runs)} runs on {myst.text(view.dev_items)}\n")
        text.append(view_html(view, page) + "\n")
    return "\n".join(text)
