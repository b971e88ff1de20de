"""A task page's side-by-side view: for each dev set the task's runs and submissions scored,
pick any two of them (A and B) and see the 2x2 table of the items each gets right
(`results.agreement`, the items `kluebook compare` pairs) and the items on which one is right
and the other wrong, with the gold and both predictions.

The page holds, per dev set, one compact JSON block: each run's name and page, and for every
item some run gets wrong its key, gold, and each run's prediction and rightness (texts stored
once, runs pointing at them). `_static/kluebook-side-by-side.js` turns the two run pickers into
the counts and the list of their disagreements (or of the items both get wrong), and keeps the
pick in the address (`#<section id>=<a>,<b>`, run numbers from 1, then `,both-wrong` for that
list) so a pair can be shared as a link. Without JavaScript the section shows the first pair's
counts and its list as plain tables, and the 2x2 table of every pair. Its HTML is the
template `side_by_side.html` (`templating`; the JSON block through Jinja2's `tojson`).

However large the dev set, the page stays within the book's weight budget: the JSON block holds
every pair's 2x2 counts, but of each pair's list (the items on which they disagree, the items
both get wrong) at most `LIST_ITEMS` shared by the view's pairs, spread over the dev set (with
many runs, the pairs growing quadratically, at most about `STORED_ITEMS` items in all), and a
line says how many of how many the list holds. Every item, with the gold and each run's
prediction and rightness, is in the view's CSV download (`<section id>.csv` beside the page).

A submission on the board (`kluebook.submissions.board.load_board`'s entries, loaded once per
build) with predictions of the task is offered beside the runs whose dev records are the ones its
dev file holds (else beside the submissions scored against the same file), named by its model's
name (as text) and marked submitted; its file is read through the submissions' streaming reader,
within their size limits. Where its dev file is not in the data folder (offline, without
`kluebook data fetch`), it is left out, and the section says how many were."""

import posixpath
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
from markupsafe import Markup

from kluebook.book import myst
from kluebook.book.item_browser import item_anchor, spread
from kluebook.book.table_assets import datatable
from kluebook.book.templating import parts
from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl, write_text_if_changed
from kluebook.common.paths import KLUE_DATA, ROOT
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
from kluebook.scoring.switches import NO_SWITCHES
from kluebook.submissions.board import BoardEntry
from kluebook.submissions.check import gold_file
from kluebook.submissions.files import prediction_lines
from kluebook.tasks import Task, task_module
from kluebook.training.recipes import record_switches

SCRIPT = "_static/kluebook-side-by-side.js"
SUBMISSIONS = "submissions"  # the submission folders, under the book's root
SUBMITTED = "submitted"  # how a submission's name is marked
# The view's HTML.
TEMPLATE = "side_by_side.html"
# The interactive list of one pair's disagreements.
ITEMS_OPTIONS = {"classes": ["klue-table", "disagreements"], "pageLength": 25, "autoWidth": False}
ITEMS_HEAD = ("Item", "Right", "Gold", "A predicted", "B predicted")
# What the list may hold (its select's options; the first is shown without JavaScript).
SHOWN_ITEMS = (("disagree", "on which they disagree"), ("both-wrong", "both get wrong"))
# The items of each kind a view's data hold for its pairs together (each pair at least
# `PAIR_ITEMS`, fewer where its pairs are so many that the data would pass `STORED_ITEMS`
# items, but at least one), spread over the dev set; the download holds every item.
LIST_ITEMS = 500
PAIR_ITEMS = 25
STORED_ITEMS = 2500


@dataclass(frozen=True)
class OfferedRun:
    """A run or a submission as the view names it, and the docname of its page (None where the
    book has none)."""

    name: str
    docname: str | None
    submitted: bool = False


@dataclass(frozen=True)
class DevSetRuns:
    """The runs and submissions of a task on one dev set that the view offers, with their
    items."""

    section: str  # the section's id, which the address names
    dev_items: str  # which dev items, in words
    runs: list[OfferedRun]
    items: DevSetAgreement
    default: tuple[int, int]  # the pair shown first (run indexes)


@dataclass(frozen=True)
class Candidate:
    """A run or a submission the view may offer: its name and page, what tells its
    configuration apart, how its prediction lines are read and the switches it is scored with."""

    name: str
    docname: str | None
    configuration: tuple
    read: Callable[[], list[dict]]
    switches: Mapping[str, object]
    submitted: bool = False


@dataclass
class DevSet:
    """Candidates scored on the same dev records (`gold`), described in words."""

    gold: list[dict]
    dev_items: str
    candidates: list[Candidate] = field(default_factory=list)


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
    return list(by_dev_set.values())


def _run_candidate(task: Task, run: RunRecord, stale: str, root: Path) -> Candidate:
    """A run as the view offers it; a stale run's name says so."""
    return Candidate(
        run_name(run) + (f" (stale: {stale} changed)" if stale else ""),
        run_page(run, root),
        configuration_key(run),
        lambda: read_jsonl(root / run.predictions),
        record_switches(task, run.outcome.recipe),
    )


def submitted_files(
    task: Task, board: Sequence[BoardEntry], folder: Path, data_dir: Path
) -> tuple[list[tuple[Candidate, Path]], int]:
    """The submissions of `board` with predictions of `task` (their files in `folder/<slug>`),
    each as the view offers it with the dev file it is scored against, and how many are left out
    because that file is not in `data_dir`."""
    mine = [entry for entry in board if task.name in entry.record.tasks]
    if not mine:
        return [], 0
    try:
        gold = gold_file(task, data_dir)
    except KluebookError:
        return [], len(mine)
    found = []
    for entry in mine:
        path = folder / entry.slug / entry.record.tasks[task.name].predictions_file
        candidate = Candidate(
            f"{entry.submission.model} ({SUBMITTED})",
            None,
            (SUBMITTED, entry.slug),
            lambda path=path: [row for _, row in prediction_lines(path)],
            NO_SWITCHES,
            submitted=True,
        )
        found.append((candidate, gold.path))
    return found, 0


def _default_pair(configurations: list[tuple], items: DevSetAgreement) -> tuple[int, int]:
    """The first run and the first of another configuration (else the first's next seed),
    unless they agree on every item and another pair does not: then the first pair that
    disagrees, so the view opens on a list with items in it."""
    first = configurations[0]
    preferred = (0, next((i for i, c in enumerate(configurations) if c != first), 1))
    pairs = [preferred, *combinations(range(len(configurations)), 2)]
    return next((pair for pair in pairs if items.disagreements(*pair)), preferred)


def dev_set_view(task: Task, dev_set: DevSet, section: str) -> tuple[DevSetRuns | None, int]:
    """The view of one dev set's runs and submissions, and how many are left out because their
    predictions cannot be read here (None when fewer than two are left)."""
    kept = []

    def answers():  # one candidate's predictions at a time, let go once taken in
        for candidate in dev_set.candidates:
            try:
                predictions = index_predictions(task, dev_set.gold, candidate.read())
            except (KluebookError, OSError):
                continue
            kept.append(candidate)
            yield RunAnswers(predictions, candidate.switches)

    items = dev_set_agreement(task, dev_set.gold, answers())
    if len(kept) < 2:
        return None, len(dev_set.candidates)
    view = DevSetRuns(
        section,
        dev_set.dev_items,
        [OfferedRun(c.name, c.docname, c.submitted) for c in kept],
        items,
        _default_pair([c.configuration for c in kept], items),
    )
    return view, len(dev_set.candidates) - len(kept)


def dev_sets(
    task: Task,
    records: list[RunRecord],
    board: Sequence[BoardEntry],
    root: Path,
    data_dir: Path,
) -> tuple[list[DevSet], int, int]:
    """The dev sets the view may offer, each with its runs and the submissions of `board`; how
    many runs are left out because their dev set cannot be read here, and how many submissions
    because their dev file is not in the data folder."""
    submitted, absent = submitted_files(task, board, root / SUBMISSIONS, data_dir)
    found, left_out = [], 0
    for runs in offered_runs(task, records):
        if len(runs) < 2 and not submitted:
            continue
        try:
            gold = record_gold(task, runs[0][0])
        except (KluebookError, OSError):
            left_out += len(runs)
            continue
        limit = runs[0][0].parameters.get("dev_limit")
        dev_items = f"the first {limit} dev items" if limit else "every dev item"
        candidates = [_run_candidate(task, run, stale, root) for run, stale in runs]
        found.append(DevSet(gold, f"{dev_items} ({runs[0][0].data_source} data)", candidates))
    by_file: dict[Path, list[dict]] = {}
    for candidate, path in submitted:
        if path not in by_file:
            by_file[path] = task_module(task).read_official(path)
        gold = by_file[path]
        dev_set = next((d for d in found if d.gold == gold), None)
        if dev_set is None:
            dev_set = DevSet(gold, f"every dev item ({path.name})")
            found.append(dev_set)
        dev_set.candidates.append(candidate)
    return [d for d in found if len(d.candidates) > 1], left_out, absent


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


def both_wrong(items: DevSetAgreement, a: int, b: int) -> list[int]:
    """The items (indexes) runs `a` and `b` both get wrong."""
    return np.flatnonzero(~items.right[a] & ~items.right[b]).tolist()


def stored_items(view: DevSetRuns) -> list[int]:
    """The items (indexes, in order) the view's data hold: of every pair, those on which they
    disagree and those both get wrong, of each at most `LIST_ITEMS` shared by the pairs (at
    least `PAIR_ITEMS`, or as many as keep them all within `STORED_ITEMS`, or one), spread over
    the dev set (where fewer than `PAIR_ITEMS`, each pair's from a place of its own, so that
    together they still spread over it). Short of the caps, every item some run gets wrong."""
    pairs = list(combinations(range(len(view.runs)), 2))
    floor = min(PAIR_ITEMS, STORED_ITEMS // (2 * len(pairs)))  # the pairs grow quadratically
    count = max(LIST_ITEMS // len(pairs), floor, 1)
    kept: set[int] = set()
    for number, (a, b) in enumerate(pairs):
        for found in (view.items.disagreements(a, b), both_wrong(view.items, a, b)):
            start = number * len(found) // len(pairs) if count < PAIR_ITEMS else 0
            kept.update(spread(found[start:] + found[:start], count))
    return sorted(kept)


def shown_text(listed: int, found: int, words: str) -> str:
    """How many of a pair's items of a kind (`words`) its list holds, in words (the script
    writes the same)."""
    if listed == found:
        return f"The list holds all {found} items {words}."
    return (
        f"The list holds {listed} of the {found} items {words}, spread over the dev set; every "
        "item is in the download below the view."
    )


def view_data(view: DevSetRuns, page: str) -> dict:
    """What the script needs, compactly: the runs, every pair's 2x2 counts (`pairs`: a, b, both
    right, only a, only b, neither), the items the lists may hold (`stored_items`: key, anchor,
    gold), each run's rightness on them ("1"/"0" per item) and predictions, texts stored once
    (`texts`, referred to by their index)."""
    items = view.items
    texts: dict[str, int] = {}

    def text(value: str) -> int:
        return texts.setdefault(value, len(texts))

    shown = stored_items(view)
    pairs = []
    for a, b in combinations(range(len(view.runs)), 2):
        counts = items.counts(a, b)
        pairs.append([a, b, counts.both, counts.only_a, counts.only_b, counts.neither])
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
    return {
        "total": len(items.keys),
        "pairs": pairs,
        "items": rows,
        "runs": runs,
        "texts": list(texts),
    }


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


def disagreements_table(view: DevSetRuns, page: str, stored: list[int]) -> Markup:
    """The default pair's disagreements among the `stored` items, an interactive table (plain
    without JavaScript); an item's key links to its row in the item browser of A's page."""
    a, b = view.default
    items = view.items
    rows = []
    for i in sorted(set(items.disagreements(a, b)) & set(stored)):
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
    stored = stored_items(view)
    listed = len(set(view.items.disagreements(a, b)) & set(stored))
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
        shown_text(listed, counts.only_a + counts.only_b, SHOWN_ITEMS[0][1]),
        disagreements_table(view, page, stored),
        html.every_pair_table(every_pair),
    )
    return str(shown)  # into the task page's Markdown


def items_csv(view: DevSetRuns) -> str:
    """Every item of a view: its key, its gold, and each run's prediction and whether it is
    right (runs numbered from 1, as in the pickers), as CSV."""
    items = view.items
    columns = {"item": [key_text(k) for k in items.keys], "gold": items.gold}
    for n, (predicted, right) in enumerate(zip(items.predicted, items.right, strict=True), 1):
        columns[f"run {n} predicted"] = predicted
        columns[f"run {n} right"] = np.where(right, "yes", "no")
    return pd.DataFrame(columns).to_csv(index=False)


def _counted(offered: list[OfferedRun]) -> str:
    """How many runs and submissions a view offers, in words."""
    submitted = sum(run.submitted for run in offered)
    runs = len(offered) - submitted
    parts = [f"{runs} run{'s' if runs > 1 else ''}"] if runs else []
    parts += [f"{submitted} submission{'s' if submitted > 1 else ''}"] if submitted else []
    return " and ".join(parts)


def _left_out(runs: int, submissions: int) -> str:
    """The sentences saying what the view leaves out ("" for nothing)."""
    text = ""
    if runs:
        text += (
            f" {runs} run{'s' if runs > 1 else ''} or submission{'s' if runs > 1 else ''} whose "
            f"dev set or predictions cannot be read here {'are' if runs > 1 else 'is'} left out."
        )
    if submissions:
        text += (
            f" {submissions} submission{'s' if submissions > 1 else ''} of this task "
            f"{'are' if submissions > 1 else 'is'} left out: the official dev file "
            f"{'they are' if submissions > 1 else 'it is'} scored against is not in the data "
            "folder here (`kluebook data fetch`)."
        )
    return text


def side_by_side(
    task: Task,
    records: list[RunRecord],
    page: str,
    root: Path = ROOT,
    data_dir: Path | None = None,
    board: Sequence[BoardEntry] = (),
) -> str:
    """The section of a task page (Markdown with HTML blocks); "" when no dev set has two
    runs or submissions that can be read here. The submissions are the entries of `board`,
    their files under `root`'s `submissions/`, scored against the dev files in `data_dir`
    (default: the data folder)."""
    views = []
    found, left_out, absent = dev_sets(task, records, board, root, data_dir or KLUE_DATA)
    for number, dev_set in enumerate(found, start=1):
        view, skipped = dev_set_view(task, dev_set, f"side-by-side-{task.name}-{number}")
        left_out += skipped
        if view is not None:
            views.append(view)
    if not views:
        return ""
    text = [
        f"(side-by-side-{task.name})=\n## Side by side\n",
        "Pick two runs or submissions of this task on the same dev items, A and B: the counts "
        "are the 2x2 table `kluebook compare` prints for their predictions files, and the list "
        "holds the items on which one is right and the other wrong, with the gold and both "
        "predictions (an item's key opens it in A's item browser); the Items list can show "
        "instead the items both get wrong. Where there are many, the list holds a sample "
        "spread over the dev set, as the line above it says, and the CSV download below the "
        "view holds every item. The address keeps the pick, so a pair and its list can be "
        "shared as a link. An item is a gold record, paired as `kluebook compare` pairs "
        "them for its paired test, and it is right when it counts as right in every metric "
        "that counts items (all its gold keys right for accuracy, EM or JGA; nothing missed "
        "and nothing extra for an F1). The runs offered are those the results table pools "
        "(current code), on the dev set they scored; a submission, marked "
        f"{SUBMITTED}, is offered beside the runs that scored the dev file it was checked "
        f"against.{_left_out(left_out, absent)} Without JavaScript the first pair is shown.\n",
    ]
    for view in views:
        if len(views) > 1:
            text.append(f"### {_counted(view.runs)} on {myst.text(view.dev_items)}\n")
        text.append(view_html(view, page) + "\n")
        download = f"{view.section}.csv"
        write_text_if_changed(root / posixpath.dirname(page) / download, items_csv(view))
        text.append(
            f"Every one of the {len(view.items.keys)} items, with the gold and each run's "
            "prediction and whether it is right (runs numbered as in the pickers): "
            f"{{download}}`CSV <{download}>`.\n"
        )
    return "\n".join(text)
