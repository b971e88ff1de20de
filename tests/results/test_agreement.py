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
from kluebook.data.loading import data_checksum, load_split
from kluebook.results import compare
from kluebook.results.agreement import agreement, items_right, side_agreements
from kluebook.scoring.predictions import index_predictions
from kluebook.tasks import all_tasks, get_task


@pytest.mark.parametrize("name", list(all_tasks()))
def test_gold_is_right_on_every_item_and_a_right_item_scores_as_the_gold(name, smoke_dev):
    """The gold's own lines are right everywhere; lines with errors are wrong somewhere, and an
    item they get right scores alone what the gold scores alone on every metric."""
    task = get_task(name)
    gold, rows = smoke_dev(name)
    truth = index_predictions(task, gold, task.module.gold_predictions(gold))
    assert items_right(task, gold, truth).all()
    predictions = index_predictions(task, gold, rows)
    right = items_right(task, gold, predictions)
    assert 0 < right.sum() < len(gold)
    for record in [r for r, ok in zip(gold, right, strict=True) if ok][:20]:
        assert task.module.score([record], predictions, {}) == task.module.score(
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


def test_the_task_page_shows_the_2x2_kluebook_compare_prints(tmp_path, imperfect_predictions):
    """Two runs of NLI on the generated dev set: the side-by-side view's counts are those of
    `kluebook compare` (the two files, and the two configurations of the records), and its
    list holds exactly the items one gets right and the other wrong."""
    task = get_task("nli")
    gold = load_split(task, "dev", "generated", None)
    lines = task.module.gold_predictions(gold)
    checksum = data_checksum(task, "generated", None)
    runs, files = [], []
    for name, seed in (("first", 1), ("second", 2)):
        rows = imperfect_predictions("nli", [dict(r) for r in lines], random.Random(seed))
        _write_jsonl(tmp_path / f"{name}.jsonl", rows)
        files.append(str(tmp_path / f"{name}.jsonl"))
        fields = {"task": "nli", "config": name, "parameters": {"data_source": "generated"}}
        runs.append(
            valid_record(
                {**fields, "metrics": {}, "data_checksum": checksum, "predictions": f"{name}.jsonl"}
            )
        )
    gold_file = tmp_path / "dev.json"
    task.module.write_official(gold, gold_file)
    printed = CliRunner().invoke(app, ["compare", *files, "--task", "nli", "--gold", gold_file])
    assert printed.exit_code == 0, printed.output
    found, sides = compare.from_records(task, runs, "first", "second", root=tmp_path)
    counts = side_agreements(task, found, *sides)
    expected = (counts[0].both, counts[0].only_a, counts[0].only_b, counts[0].neither)
    assert _counts(printed.output) == [expected]
    assert counts[0].items == len(gold) and counts[0].only_a > 0 and counts[0].only_b > 0
    page = side_by_side(task, runs, "book/_generated/tasks/nli", root=tmp_path)
    row = page.split('<th scope="row">pair 1</th>')[1].split("</tr>")[0]
    assert tuple(int(n) for n in re.findall(r"<td>(\d+)</td>", row)) == expected
    listed = page.split('<table id="side-by-side-items">')[1].split("</table>")[0]
    shown = min(expected[1], 50) + min(expected[2], 50)
    assert listed.count("<tr><td>pair 1</td>") == shown
    right_a, right_b = (items_right(task, gold, side.predictions[0]) for side in sides)
    differ = [r["guid"] for r, a, b in zip(gold, right_a, right_b, strict=True) if a != b]
    assert f"<td>{differ[0]}</td>" in listed
    same = [r["guid"] for r, a, b in zip(gold, right_a, right_b, strict=True) if a == b]
    assert f"<td>{same[0]}</td>" not in listed


def test_agreement_counts_the_four_cells():
    a = np.array([True, True, False, False, True])
    b = np.array([True, False, True, False, False])
    counts = agreement(a, b)
    assert (counts.both, counts.only_a, counts.only_b, counts.neither) == (1, 2, 1, 1)
