"""Which items two runs get right: each item right or wrong as the paired bootstrap counts it,
the 2x2 table `kluebook compare` prints, and the same table on a task page's side-by-side view."""

import json
import random
import re

import numpy as np
import pytest
from conftest import valid_record
from typer.testing import CliRunner

from kluebook.book.side_by_side import side_by_side
from kluebook.cli.app import app
from kluebook.common.json_files import read_jsonl
from kluebook.data.loading import data_checksum, load_split
from kluebook.recording import fingerprints
from kluebook.results import compare
from kluebook.results.agreement import agreement, items_right, side_agreements
from kluebook.scoring.predictions import index_predictions
from kluebook.tasks import all_tasks, get_task, task_module


@pytest.mark.parametrize("name", list(all_tasks()))
def test_gold_is_right_on_every_item_and_a_right_item_scores_as_the_gold(name, smoke_dev):
    """The gold's own lines are right everywhere; lines with errors are wrong somewhere, and an
    item they get right scores alone what the gold scores alone on every metric."""
    task = get_task(name)
    gold, rows = smoke_dev(name)
    truth = index_predictions(task, gold, task_module(task).gold_predictions(gold))
    assert items_right(task, gold, truth).all()
    predictions = index_predictions(task, gold, rows)
    right = items_right(task, gold, predictions)
    assert 0 < right.sum() < len(gold)
    for record in [r for r, ok in zip(gold, right, strict=True) if ok][:20]:
        assert task_module(task).score([record], predictions, {}) == task_module(task).score(
            [record], truth, {}
        )


def test_a_label_task_counts_its_items_by_their_label(smoke_dev):
    task = get_task("re")
    gold, rows = smoke_dev("re")
    right = items_right(task, gold, index_predictions(task, gold, rows))
    labels = [row["label"] for row in rows]  # the lines are in the gold's order
    assert list(right) == [r["label"] == label for r, label in zip(gold, labels, strict=True)]


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def _counts(output: str) -> list[tuple[int, ...]]:
    return [
        tuple(int(n) for n in match.groups())
        for match in re.finditer(r"seed pair \d+: +(\d+) +(\d+) +(\d+) +(\d+) +of", output)
    ]


def _nli_runs(tmp_path, imperfect_predictions, names):
    """Records of NLI runs on the generated dev set, one configuration each, whose prediction
    files (with errors of their own) are beside them; the gold and the files."""
    task = get_task("nli")
    gold = load_split(task, "dev", "generated", None)
    lines = task_module(task).gold_predictions(gold)
    checksum = data_checksum(task, "generated", None)
    runs, files = [], []
    for seed, name in enumerate(names, start=1):
        rows = imperfect_predictions("nli", [dict(r) for r in lines], random.Random(seed))
        _write_jsonl(tmp_path / f"{name}.jsonl", rows)
        files.append(str(tmp_path / f"{name}.jsonl"))
        fields = {"task": "nli", "config": name, "parameters": {"data_source": "generated"}}
        runs.append(
            valid_record(
                {**fields, "metrics": {}, "data_checksum": checksum, "predictions": f"{name}.jsonl"}
            )
        )
    return gold, runs, files


def _view_data(page: str) -> dict:
    block = re.search(r'<script type="application/json" id="[^"]+-data">(.*?)</script>', page)
    return json.loads(block.group(1))


def _pair_counts(data: dict, a: int, b: int) -> tuple[int, ...]:
    """The 2x2 table of runs `a` and `b` from the page's data, as its script counts it."""
    ra, rb = data["runs"][a]["right"], data["runs"][b]["right"]
    only_a = sum(x == "1" and y == "0" for x, y in zip(ra, rb, strict=True))
    only_b = sum(x == "0" and y == "1" for x, y in zip(ra, rb, strict=True))
    neither = sum(x == "0" and y == "0" for x, y in zip(ra, rb, strict=True))
    return data["total"] - only_a - only_b - neither, only_a, only_b, neither


def test_the_task_page_shows_the_2x2_kluebook_compare_prints(tmp_path, imperfect_predictions):
    """Two runs of NLI on the generated dev set: the side-by-side view's counts are those of
    `kluebook compare` (the two files, and the two configurations of the records), and its
    list holds exactly the items one gets right and the other wrong."""
    task = get_task("nli")
    gold, runs, files = _nli_runs(tmp_path, imperfect_predictions, ("first", "second"))
    gold_file = tmp_path / "dev.json"
    task_module(task).write_official(gold, gold_file)
    printed = CliRunner().invoke(app, ["compare", *files, "--task", "nli", "--gold", gold_file])
    assert printed.exit_code == 0, printed.output
    found, sides = compare.from_records(task, runs, "first", "second", root=tmp_path)
    counts = side_agreements(task, found, *sides)
    expected = (counts[0].both, counts[0].only_a, counts[0].only_b, counts[0].neither)
    assert _counts(printed.output) == [expected]
    assert counts[0].items == len(gold) and counts[0].only_a > 0 and counts[0].only_b > 0
    page = side_by_side(task, runs, "book/_generated/tasks/nli", root=tmp_path)
    said = re.search(
        r"Of the (\d+) items: both right (\d+), only A right (\d+), only B right "
        r"(\d+), both wrong (\d+)\.",
        page,
    )
    assert tuple(int(n) for n in said.groups()) == (len(gold), *expected)
    listed = page.split('<table id="side-by-side-nli-1-items">')[1].split("</table>")[0]
    right_a, right_b = (items_right(task, gold, side.predictions[0]) for side in sides)
    differ = [r["guid"] for r, a, b in zip(gold, right_a, right_b, strict=True) if a != b]
    rows = re.findall(r"<tr><td>(?:<a [^>]*>)?([^<]+)(?:</a>)?</td><td>([AB])</td>", listed)
    assert [key for key, _ in rows] == differ
    right_side = ["A" if a else "B" for a, b in zip(right_a, right_b, strict=True) if a != b]
    assert [side for _, side in rows] == right_side
    assert _pair_counts(_view_data(page), 0, 1) == expected


def test_any_two_of_three_runs_give_compare_s_2x2(tmp_path, imperfect_predictions):
    """Three runs: the page's data give, for every pair the reader may pick, in either order,
    the 2x2 table `kluebook compare` uses for that pair; the plain table of every pair says
    the same; and an item every run gets right is left out of the data."""
    task = get_task("nli")
    names = ("one", "two", "three")
    gold, runs, _ = _nli_runs(tmp_path, imperfect_predictions, names)
    page = side_by_side(task, runs, "book/_generated/tasks/nli", root=tmp_path)
    data = _view_data(page)
    assert [run["name"].split(", ")[-1] for run in data["runs"]] == ["seed 1"] * 3
    offered = [re.search(r", (one|two|three)", run["name"]) for run in data["runs"]]
    order = [names.index(match.group(1)) for match in offered]
    every_pair = page.split('class="klue-table agreement"')[1].split("</table>")[0]
    table_rows = re.findall(r"((?:<td>\d+</td>){4})</tr>", every_pair)
    assert len(table_rows) == 3
    for row, (a, b) in zip(table_rows, [(0, 1), (0, 2), (1, 2)], strict=True):
        found, sides = compare.from_records(
            task, runs, names[order[a]], names[order[b]], root=tmp_path
        )
        c = side_agreements(task, found, *sides)[0]
        assert _pair_counts(data, a, b) == (c.both, c.only_a, c.only_b, c.neither)
        assert _pair_counts(data, b, a) == (c.both, c.only_b, c.only_a, c.neither)
        assert tuple(int(n) for n in re.findall(r"\d+", row)) == _pair_counts(data, a, b)
    rights = [
        items_right(task, gold, index_predictions(task, gold, read_jsonl(tmp_path / f"{n}.jsonl")))
        for n in names
    ]
    some_wrong = [r["guid"] for i, r in enumerate(gold) if not all(ok[i] for ok in rights)]
    assert [row[0] for row in data["items"]] == some_wrong and len(some_wrong) < len(gold)


def test_a_stale_run_is_offered_under_a_name_that_says_so(tmp_path, imperfect_predictions):
    """A configuration whose only runs were made by older task code is offered, as its table
    cell shows it, and its name says what changed; a current run's name says nothing."""
    _, runs, _ = _nli_runs(tmp_path, imperfect_predictions, ("old", "new"))
    inputs = {**runs[0].inputs.model_dump(), "task_code": "0" * 64}
    stale = runs[0].model_copy(update={"inputs": fingerprints.Inputs.model_validate(inputs)})
    page = side_by_side(get_task("nli"), [stale, runs[1]], "book/_generated/tasks/nli", tmp_path)
    names = [run["name"] for run in _view_data(page)["runs"]]
    marked = [name for name in names if name.endswith(" (stale: task code changed)")]
    assert len(names) == 2 and len(marked) == 1 and ", old, " in marked[0]


def test_agreement_counts_the_four_cells():
    a = np.array([True, True, False, False, True])
    b = np.array([True, False, True, False, False])
    counts = agreement(a, b)
    assert (counts.both, counts.only_a, counts.only_b, counts.neither) == (1, 2, 1, 1)
