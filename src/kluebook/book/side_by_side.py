"""A task page's side-by-side view: pairs of its runs, the 2x2 table of the items each gets
right (`results.agreement`, the items `kluebook compare` pairs), and the items on which one is
right and the other wrong, with both predictions, in a table filtered by pair."""

import html
from collections import defaultdict
from itertools import combinations, pairwise
from pathlib import Path

from kluebook.book.item_browser import item_anchor
from kluebook.book.table_assets import datatable
from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl
from kluebook.common.paths import ROOT
from kluebook.recording.records import RunRecord
from kluebook.results.aggregation import run_configuration
from kluebook.results.agreement import Agreement, agreement, items_right, prediction_text
from kluebook.results.compare import record_gold
from kluebook.results.items import key_text
from kluebook.results.links import ITEMS_ANCHOR, href, run_page
from kluebook.results.pooling import code_today, pooled
from kluebook.scoring.predictions import index_predictions
from kluebook.tasks import Task
from kluebook.training.recipes import record_switches

# The pairs a page shows, and the items of each pair it lists (the page stays light).
MAX_PAIRS = 8
MAX_ITEMS = 50


def run_pairs(task: Task, records: list[RunRecord]) -> list[tuple[RunRecord, RunRecord]]:
    """The pairs of runs shown: the first seeds of every two configurations (as their table
    cells pool them), then each configuration's seeds one after the other, on the same dev set,
    at most `MAX_PAIRS`."""
    mine = [r for r in records if r.task == task.name and r.outcome and r.predictions]
    groups: dict[tuple, list[RunRecord]] = defaultdict(list)
    for record in mine:
        groups[(record.profile, record.model, record.data_source, record.config)].append(record)
    today = code_today(mine)
    runs = [pooled(groups[key], today)[0] for key in sorted(groups)]
    across = [(a[0], b[0]) for a, b in combinations(runs, 2)]
    within = [(x, y) for seeds in runs for x, y in pairwise(seeds)]
    return [(a, b) for a, b in across + within if a.dev_set == b.dev_set][:MAX_PAIRS]


def run_name(record: RunRecord) -> str:
    config = run_configuration(record)
    return f"{record.model}, {record.profile}{f', {config}' if config else ''}, seed {record.seed}"


def _right(task: Task, gold: list[dict], record: RunRecord, root: Path):
    predictions = index_predictions(task, gold, read_jsonl(root / record.predictions))
    switches = record_switches(task, record.outcome.recipe)
    return predictions, items_right(task, gold, predictions, switches)


def _run_link(record: RunRecord, page: str, root: Path) -> str:
    docname = run_page(record, root)
    name = html.escape(run_name(record))
    return f'<a href="{href(page, docname, ITEMS_ANCHOR)}">{name}</a>' if docname else name


def _item_link(record: RunRecord, page: str, root: Path, key) -> str:
    """An item's key, linked to its row in the item browser of run `record` (A's page)."""
    docname, text = run_page(record, root), html.escape(key_text(key))
    return (
        f'<a href="{href(page, docname, item_anchor(key_text(key)))}">{text}</a>'
        if docname
        else text
    )


def side_by_side(task: Task, records: list[RunRecord], page: str, root: Path = ROOT) -> str:
    """The section of a task page (Markdown with HTML tables); "" when it has no two runs."""
    pairs = run_pairs(task, records)
    if not pairs:
        return ""
    counts_rows, item_rows, left_out = [], [], 0
    golds: dict[str, list[dict]] = {}  # by dev set, and each run's items, read once
    runs: dict[str, tuple] = {}
    for number, (a, b) in enumerate(pairs, start=1):
        try:
            gold = golds.get(a.dev_set) or golds.setdefault(a.dev_set, record_gold(task, a))
            for run in (a, b):
                if run.predictions not in runs:
                    runs[run.predictions] = _right(task, gold, run, root)
            (pa, ra), (pb, rb) = runs[a.predictions], runs[b.predictions]
        except (KluebookError, OSError):
            left_out += 1
            continue
        label = f"pair {number}"
        c: Agreement = agreement(ra, rb)
        counts_rows.append(
            f'<tr><th scope="row">{label}</th><td>{_run_link(a, page, root)}</td>'
            f"<td>{_run_link(b, page, root)}</td><td>{c.both}</td><td>{c.only_a}</td>"
            f"<td>{c.only_b}</td><td>{c.neither}</td></tr>"
        )
        shown = [i for i in range(len(gold)) if ra[i] != rb[i]][:MAX_ITEMS]
        for i in shown:
            record = gold[i]
            lines = task.module.gold_predictions([record], record_switches(task, a.outcome.recipe))
            truth = dict(zip(task.module.gold_keys([record]), lines, strict=True))
            cells = [
                _item_link(a, page, root, next(iter(truth))),
                "A" if ra[i] else "B",
                html.escape(prediction_text(task, record, truth)),
                html.escape(prediction_text(task, record, pa)),
                html.escape(prediction_text(task, record, pb)),
            ]
            item_rows.append(
                f"<tr><td>{label}</td>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"
            )
    if not counts_rows:
        return ""
    counts_head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("Pair", "A", "B", "both right", "only A right", "only B right", "both wrong")
    )
    counts = (
        '<div class="klue-table-wrap"><table class="klue-table agreement">'
        "<caption>Items each run of a pair gets right</caption>"
        f"<thead><tr>{counts_head}</tr></thead><tbody>{''.join(counts_rows)}</tbody>"
        "</table></div>"
    )
    items_head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("Pair", "Item", "Right", "Gold", "A predicted", "B predicted")
    )
    inner = (
        "<caption>Items one run of a pair gets right and the other wrong</caption>"
        f"<thead><tr>{items_head}</tr></thead><tbody>{''.join(item_rows)}</tbody>"
    )
    # One table, plain without JavaScript and interactive with it: no fallback copy.
    items = datatable("side-by-side-items", inner, "", page, ITEMS_OPTIONS)
    skipped = (
        f" {left_out} pair{'s' if left_out > 1 else ''} whose dev set cannot be read here "
        "are left out."
        if left_out
        else ""
    )
    return (
        f"(side-by-side-{task.name})=\n## Side by side\n\n"
        "Two runs of this task on the same dev items: the first seeds of every two "
        "configurations, then each configuration's seeds one after the other (at most "
        f"{MAX_PAIRS} pairs).{skipped} An item is a gold record, paired as `kluebook compare` "
        "pairs them for its paired test, and it is right when it counts as right in every "
        "metric that counts items (all its gold keys right for accuracy, EM or JGA; nothing "
        "missed and nothing extra for an F1); the counts below are the 2x2 table `kluebook "
        "compare` prints for the two runs' predictions files (for two configurations, its "
        "first seed pair). A run's name links to the browser of its items.\n\n"
        f"{counts}\n\n"
        "The items on which one run of a pair is right and the other wrong (the first "
        f"{MAX_ITEMS} of each pair), with the gold and both predictions: pick a pair in the "
        "Pair column's filter.\n\n"
        f'<div class="klue-table-wrap">{items}</div>\n'
    )


# The interactive list of disagreements: pick a pair from the list of the Pair column.
ITEMS_OPTIONS = {
    "classes": ["klue-table", "disagreements"],
    "pageLength": 25,
    "autoWidth": False,
    "columnDefs": [{"targets": 0, "columnControl": [["searchList"]]}],
}
