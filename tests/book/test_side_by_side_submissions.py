"""The side-by-side view with submissions: a submission on the board (`load_board`'s entries) is
offered beside the runs that scored its dev file, named by its model's name (as text) and marked
submitted, read through the submissions' streaming reader; submissions compare with each other;
where their dev file is absent they are left out, and the section says so."""

import json
import random
import re

import numpy as np
import pandas as pd
from conftest import valid_record
from support.submissions import METADATA, make_submission

from kluebook.book import side_by_side as side_by_side_module
from kluebook.book.item_browser import spread
from kluebook.book.side_by_side import side_by_side
from kluebook.data.loading import data_checksum, load_split
from kluebook.results.agreement import items_right
from kluebook.scoring.predictions import index_predictions
from kluebook.submissions.board import load_board
from kluebook.tasks import get_task, task_module

PAGE = "book/_generated/tasks/nli"
HOSTILE = '<script>alert(1)</script> "onmouseover=x'


def _view_data(page: str) -> list[dict]:
    blocks = re.findall(r'<script type="application/json" id="[^"]+-data">(.*?)</script>', page)
    return [json.loads(block) for block in blocks]


def _setup(tmp_path, imperfect_predictions, runs=("first",), submitted=("model-a",)):
    """NLI runs on the generated dev set, a data folder holding that dev set as the reduced
    copy of the official file, and submissions of their own imperfect predictions."""
    task = get_task("nli")
    gold = load_split(task, "dev", "generated", None)
    lines = task_module(task).gold_predictions(gold)
    data_dir = tmp_path / "data"
    path = data_dir / task.files["dev"].replace(".json", ".partial.json")
    path.parent.mkdir(parents=True)
    task_module(task).write_official(gold, path)
    records, files = [], {}
    for seed, name in enumerate(runs, start=1):
        rows = imperfect_predictions("nli", [dict(r) for r in lines], random.Random(seed))
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        files[name] = rows
        fields = {"task": "nli", "config": name, "parameters": {"data_source": "generated"}}
        checksum = data_checksum(task, "generated", None)
        records.append(
            valid_record(
                {**fields, "metrics": {}, "data_checksum": checksum, "predictions": f"{name}.jsonl"}
            )
        )
    for seed, slug in enumerate(submitted, start=10):
        rows = imperfect_predictions("nli", [dict(r) for r in lines], random.Random(seed))
        metadata = METADATA.replace("Test model", f"{slug} {HOSTILE}")
        make_submission(tmp_path / "submissions" / slug, {"nli": rows}, metadata)
        files[slug] = rows
    (tmp_path / "submissions" / "_derived").mkdir(parents=True, exist_ok=True)
    return task, gold, data_dir, records, files


def _board(tmp_path, data_dir):
    """The entries of the board of the submissions under `tmp_path` (rescored against the dev
    files in `data_dir`, else shown as committed)."""
    return load_board(tmp_path / "submissions", data_dir, warn=False).entries


def _right(task, gold, rows):
    return items_right(task, gold, index_predictions(task, gold, rows))


def test_a_submission_is_offered_beside_the_runs_of_its_dev_file(tmp_path, imperfect_predictions):
    task, gold, data_dir, runs, files = _setup(tmp_path, imperfect_predictions)
    board = _board(tmp_path, data_dir)
    page = side_by_side(task, runs, PAGE, root=tmp_path, data_dir=data_dir, board=board)
    (data,) = _view_data(page)
    names = [run["name"] for run in data["runs"]]
    assert names[1] == f"model-a {HOSTILE} (submitted)" and names[0].endswith("seed 1")
    assert data["total"] == len(gold)
    right = {name: _right(task, gold, rows) for name, rows in files.items()}
    shown = [i for i in range(len(gold)) if not (right["first"][i] and right["model-a"][i])]
    assert [row[0] for row in data["items"]] == [gold[i]["guid"] for i in shown]
    for run, name in zip(data["runs"], ("first", "model-a"), strict=True):
        assert run["right"] == "".join("1" if right[name][i] else "0" for i in shown)
    # The model's name is text: escaped in the pickers, and never closing the JSON block.
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &#34;onmouseover=x (submitted)" in page
    assert "left out" not in page
    # The view offers the board's submissions, never finding any of its own.
    assert side_by_side(task, runs, PAGE, root=tmp_path, data_dir=data_dir) == ""


def test_two_submissions_compare_without_any_run(tmp_path, imperfect_predictions):
    task, gold, data_dir, _, files = _setup(
        tmp_path, imperfect_predictions, runs=(), submitted=("model-a", "model-b")
    )
    board = _board(tmp_path, data_dir)
    page = side_by_side(task, [], PAGE, root=tmp_path, data_dir=data_dir, board=board)
    (data,) = _view_data(page)
    assert [run["name"].split(" ")[0] for run in data["runs"]] == ["model-a", "model-b"]
    a, b = (_right(task, gold, files[slug]) for slug in ("model-a", "model-b"))
    said = re.search(r"both right (\d+), only A right (\d+), only B right (\d+)", page)
    assert tuple(int(n) for n in said.groups()) == (
        int((a & b).sum()),
        int((a & ~b).sum()),
        int((~a & b).sum()),
    )


def test_submissions_whose_dev_file_is_absent_are_left_out_in_one_line(
    tmp_path, imperfect_predictions
):
    task, _, data_dir, runs, _ = _setup(
        tmp_path, imperfect_predictions, runs=("first", "second"), submitted=("a", "b")
    )
    _board(tmp_path, data_dir)  # their records, derived where the dev file is
    offline = tmp_path / "nowhere"
    board = _board(tmp_path, offline)  # then shown as committed
    assert [entry.state for entry in board] == ["committed", "committed"]
    page = side_by_side(task, runs, PAGE, root=tmp_path, data_dir=offline, board=board)
    (data,) = _view_data(page)
    assert len(data["runs"]) == 2 and "submitted" not in json.dumps(data)
    assert (
        " 2 submissions of this task are left out: the official dev file they are scored "
        "against is not in the data folder here (`kluebook data fetch`)." in page
    )
    # One run and no dev file for the submissions: no pair, no section.
    assert side_by_side(task, runs[:1], PAGE, root=tmp_path, data_dir=offline, board=board) == ""


def test_a_submission_that_cannot_be_read_is_not_offered(tmp_path, imperfect_predictions):
    """A folder whose metadata does not read is refused by the board, so the view never offers
    it; a predictions file that no longer reads when the view reads it (changed after the board
    was loaded) is left out as an unreadable run is, in the section's line."""
    task, _, data_dir, runs, _ = _setup(
        tmp_path, imperfect_predictions, runs=("first", "second"), submitted=("good", "broken")
    )
    unread = make_submission(tmp_path / "submissions" / "no-metadata", {}, metadata="model: [")
    (unread / "nli.jsonl").write_text((tmp_path / "first.jsonl").read_text())
    board = _board(tmp_path, data_dir)
    assert [entry.slug for entry in board] == ["broken", "good"]
    (tmp_path / "submissions" / "broken" / "nli.jsonl").write_text('{"guid": 1}\nnot json\n')
    page = side_by_side(task, runs, PAGE, root=tmp_path, data_dir=data_dir, board=board)
    (data,) = _view_data(page)
    assert [r["name"].split(" ")[0] for r in data["runs"]][2:] == ["good"]
    assert " 1 run or submission whose dev set or predictions cannot be read here is left" in page


def test_submissions_on_another_dev_set_are_a_view_of_their_own(tmp_path, imperfect_predictions):
    """Runs on the first 50 dev items and two submissions of the whole dev file: two views,
    each headed by what it offers."""
    task, _, data_dir, runs, _ = _setup(
        tmp_path, imperfect_predictions, runs=("first", "second"), submitted=("a", "b")
    )
    cut = [r.model_copy(update={"parameters": {**r.parameters, "dev_limit": 50}}) for r in runs]
    for name in ("first", "second"):
        lines = (tmp_path / f"{name}.jsonl").read_text().splitlines(keepends=True)
        (tmp_path / f"{name}.jsonl").write_text("".join(lines[:50]))
    board = _board(tmp_path, data_dir)
    page = side_by_side(task, cut, PAGE, root=tmp_path, data_dir=data_dir, board=board)
    runs_view, submitted_view = _view_data(page)
    assert runs_view["total"] == 50 and submitted_view["total"] > 50
    assert all("(submitted)" in run["name"] for run in submitted_view["runs"])
    assert "### 2 runs on the first 50 dev items (generated data)" in page
    assert "### 2 submissions on every dev item (klue-nli-v1.1_dev.partial.json)" in page


def test_a_large_view_lists_a_sample_says_so_and_offers_every_item(
    tmp_path, imperfect_predictions, monkeypatch
):
    """Past the view's caps its data hold every pair's exact counts but, of each list, a sample
    spread over the dev set; a line says how many of how many, and the view's CSV download holds
    every item, the same bytes from one build to the next."""
    monkeypatch.setattr(side_by_side_module, "LIST_ITEMS", 4)
    monkeypatch.setattr(side_by_side_module, "PAIR_ITEMS", 1)
    task, gold, data_dir, runs, files = _setup(tmp_path, imperfect_predictions)
    board = _board(tmp_path, data_dir)
    page = side_by_side(task, runs, PAGE, root=tmp_path, data_dir=data_dir, board=board)
    (data,) = _view_data(page)
    a, b = (_right(task, gold, files[name]) for name in ("first", "model-a"))
    differ, neither = np.flatnonzero(a != b).tolist(), np.flatnonzero(~a & ~b).tolist()
    assert len(differ) > 4 and len(neither) > 4  # the caps bind
    both, only_a, only_b = int((a & b).sum()), int((a & ~b).sum()), int((~a & b).sum())
    assert data["pairs"] == [[0, 1, both, only_a, only_b, len(neither)]]
    kept = sorted(set(spread(differ, 4)) | set(spread(neither, 4)))
    assert [row[0] for row in data["items"]] == [gold[i]["guid"] for i in kept]
    assert max(kept) > len(gold) // 2  # spread over the dev set, not its opening
    listed = page.split('<table id="side-by-side-nli-1-items">')[1].split("</table>")[0]
    assert listed.count("<tr><td>") == 4
    assert (
        f"The list holds 4 of the {len(differ)} items on which they disagree, spread over the "
        "dev set; every item is in the download below the view." in page
    )
    assert "{download}`CSV <side-by-side-nli-1.csv>`" in page
    download = tmp_path / "book" / "_generated" / "tasks" / "side-by-side-nli-1.csv"
    every = pd.read_csv(download, keep_default_na=False)
    assert list(every["item"]) == [record["guid"] for record in gold]
    assert list(every["run 1 right"]) == ["yes" if r else "no" for r in a]
    assert list(every["run 2 right"]) == ["yes" if r else "no" for r in b]
    assert str(tmp_path) not in download.read_text()
    before = download.read_bytes()
    assert side_by_side(task, runs, PAGE, root=tmp_path, data_dir=data_dir, board=board) == page
    assert download.read_bytes() == before


def test_many_runs_keep_the_view_data_within_its_item_cap():
    """With 51 runs (1275 pairs, past `STORED_ITEMS`) that get other items wrong, the data hold
    at least one item of each kind per pair but no more (not every wrong item), each pair's
    from a place of its own, so together they spread over the dev set; with few pairs each
    still holds its share of `LIST_ITEMS`, more than `PAIR_ITEMS`, of each kind."""
    from itertools import combinations

    from kluebook.book.side_by_side import (
        LIST_ITEMS,
        PAIR_ITEMS,
        STORED_ITEMS,
        DevSetRuns,
        OfferedRun,
        stored_items,
    )
    from kluebook.results.agreement import DevSetAgreement

    rng = np.random.default_rng(0)
    size = 9000

    def view(runs: int) -> DevSetRuns:
        right = [rng.random(size) > 0.15 for _ in range(runs)]
        items = DevSetAgreement(
            [str(i) for i in range(size)], ["g"] * size, [["p"] * size] * runs, right
        )
        offered = [OfferedRun(f"run {n}", None) for n in range(runs)]
        return DevSetRuns("s", "every dev item", offered, items, (0, 1))

    many = view(51)
    kept = stored_items(many)
    wrong = set(np.flatnonzero(~np.logical_and.reduce(many.items.right)).tolist())
    pairs = list(combinations(range(51), 2))
    assert 2 * PAIR_ITEMS * len(pairs) > STORED_ITEMS  # the floor of each pair gives way
    assert len(kept) <= 2 * len(pairs) < len(wrong)
    assert len(kept) > len(pairs) and max(kept) > size * 9 // 10  # spread over the dev set
    for a, b in pairs:  # every pair keeps items of its own of each kind
        assert set(kept) & set(many.items.disagreements(a, b))
        assert set(kept) & set(np.flatnonzero(~many.items.right[a] & ~many.items.right[b]))
    few = view(3)
    kept = set(stored_items(few))
    assert len(set(few.items.disagreements(0, 2)) & kept) >= LIST_ITEMS // 3 > PAIR_ITEMS
