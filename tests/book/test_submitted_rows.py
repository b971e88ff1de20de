"""The submissions on the site: the KLUE table's block of submitted rows (never mixed with the
other blocks, marked recomputed, linked to their pages, flagged where they declare dev data or
beat every published dev number), a page per submission, their numbers in results.json/csv and
model-index, and a hostile submission shown as text everywhere (the browser's check of it is
tests/end_to_end/test_submissions_in_browser.py)."""

import json
import re
from html.parser import HTMLParser

import pandas as pd
import pytest
import yaml
from support import hostile_submission as hostile

from kluebook.book import downloads, model_index, pages, submission_pages
from kluebook.book.klue_table import sections_for, table_html
from kluebook.book.results_page import render
from kluebook.book.submitted import (
    RECOMPUTED,
    published_dev_best,
    submission_page,
    submitted_rows,
)
from kluebook.common.paths import CHECKOUT
from kluebook.results.aggregation import published_rows, published_scores
from kluebook.submissions.board import BoardEntry, load_board
from kluebook.submissions.files import prediction_lines
from kluebook.tasks import all_tasks


class Parsed(HTMLParser):
    """The elements, attributes and text of an HTML fragment."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.attributes, self.parts = [], [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += [(tag, name, value or "") for name, value in attrs]

    def handle_data(self, data):
        self.parts.append(data)

    @property
    def text(self) -> str:
        return " ".join("".join(self.parts).split())


def offline(submission, record) -> BoardEntry:
    """A board entry as an offline build shows it: its record as committed."""
    return BoardEntry(record.slug, submission, record, "committed")


def shown(value: str) -> str:
    return " ".join(value.split())


@pytest.fixture(scope="module")
def board():
    """The committed baselines' board, as an offline build shows it."""
    found = load_board(CHECKOUT / "submissions", None, warn=False).entries
    assert [entry.slug for entry in found] == [
        "majority-baseline",
        "next-eojeol-baseline",
        "tfidf-baseline",
    ]
    return found


def table(rows, reproduced=()) -> str:
    tasks = list(all_tasks().values())
    published = published_rows(published_scores())
    reference = published_rows(published_scores("original"))
    return table_html(
        sections_for(list(reproduced), published, reference, rows), tasks, "book/results"
    )


def blocks(html: str) -> list[str]:
    """The block names of the plain table, in order."""
    return re.findall(r'<tr class="section" data-block="([^"]*)"', html)


def test_the_submitted_rows_are_a_block_of_their_own_after_every_other(board):
    rows = submitted_rows(board)
    html = table(rows)
    assert blocks(html)[-1] == "Submitted"
    assert blocks(html).count("Submitted") == 1
    submitted = html[html.index('<tbody class="submitted">') :]
    submitted = submitted[: submitted.index("</tbody>")]
    assert submitted.count('<th class="model" scope="row">') == 3
    for entry, row in zip(board, rows, strict=True):
        submission, record = entry.submission, entry.record
        link = f'href="_generated/submissions/{record.slug}.html"'
        assert f"<a {link}>{submission.model}</a>" in submitted
        assert row.page == submission_page(record.slug)
    assert submitted.count(RECOMPUTED) == 3 + 1  # each row, and the block's heading
    # Not one submitted row outside its block.
    assert html.count(RECOMPUTED) == 3 + 1
    assert "3 params" in submitted  # the majority baseline's three numbers, not "0M"


def test_a_submitted_cell_is_its_official_value_with_its_interval_and_a_missing_task_is_empty(
    board,
):
    (majority,) = [r for r in submitted_rows(board) if r.source == "majority-baseline"]
    scores = majority.record.tasks["dp"]
    uas = scores.official["uas"]
    assert majority.cells["dp", "uas"].values == [uas]
    html = table([majority])
    interval = scores.intervals["uas"]
    cell = f'data-order="{uas:.4f}">{uas:.2f}</td>'
    assert cell in html
    assert f"{interval.low:.2f}–{interval.high:.2f}" in html
    # Tasks it has not submitted (RE, MRC, WoS) and undefined metrics are empty cells, sorted
    # last.
    row = html[html.index('<tbody class="submitted">') :]
    empty = [(t.name, m.key) for t in all_tasks().values() for m in t.metrics]
    empty = [key for key in empty if key not in majority.cells]
    assert len(empty) > sum(len(t.metrics) for n, t in all_tasks().items() if n in ("re", "mrc"))
    assert row.count('class="num missing" data-order="-1"') == len(empty)


def test_dev_data_declared_and_a_number_above_every_published_dev_number_are_flagged():
    best = published_dev_best()
    assert best["dp", "uas"] < 99.5  # the KLUE README's first table
    (row,) = submitted_rows([offline(hostile.metadata(), hostile.record(99.5))])
    assert row.above_dev == {("dp", "uas")}
    assert row.dev_data_used
    html = table([row])
    assert 'class="cell-mark above-dev"' in html and 'id="klue-mark-above-dev"' in html
    assert 'class="cell-mark dev-data"' in html and 'id="klue-mark-dev-data"' in html
    (plain,) = submitted_rows([offline(hostile.metadata(), hostile.record(best["dp", "uas"] - 1))])
    assert plain.above_dev == set()
    assert "above-dev" not in table([plain])


def test_the_baselines_are_flagged_nowhere(board):
    html = table(submitted_rows(board))
    assert "cell-mark above-dev" not in html and "cell-mark dev-data" not in html


def test_a_hostile_submission_is_text_in_the_table_and_on_its_page(tmp_path):
    folder = hostile.write_submission(tmp_path)
    board = [offline(hostile.metadata(hostile.LINK), hostile.record())]
    rows = submitted_rows(board)
    html = table(rows)
    parsed = Parsed(html)
    assert not [a for a in parsed.attributes if a[1].startswith("on")]
    assert not [a for a in parsed.attributes if "javascript:" in a[2]]
    assert "b" not in parsed.tags and "img" not in parsed.tags
    assert shown(hostile.MODEL) in parsed.text

    markdown = submission_pages.page_markdown(
        rows[0],
        board[0].record,
        "committed",
        folder,
        [],
        [],
        tmp_path / "no-data",
        out_dir=tmp_path,
    )
    parsed = Parsed(markdown)
    assert not [a for a in parsed.attributes if a[1].startswith("on")]
    assert not [a for a in parsed.attributes if a[2].strip().lower().startswith("javascript:")]
    assert {"b", "img", "i"}.isdisjoint(parsed.tags)
    # The link is no link: shown as the text it is.
    assert f"<code>{hostile.LINK}</code> (not a web address: shown as text)" in markdown
    # Its heading is the name as literal MyST text; the predicted labels are in the item
    # browser's data, escaped.
    assert markdown.splitlines()[1].startswith("# \\<script\\>alert(1)\\</script\\>")
    assert "&lt;img src=x onerror=alert(5)&gt;" in markdown
    assert "is not here: the table holds the predictions alone" in markdown
    assert "No released-checkpoint run of DP in this book" in markdown


def test_a_web_link_is_a_link(tmp_path):
    folder = hostile.write_submission(tmp_path)
    board = [offline(hostile.metadata(), hostile.record())]
    (row,) = submitted_rows(board)
    markdown = submission_pages.page_markdown(
        row, board[0].record, "committed", folder, [], [], tmp_path, out_dir=tmp_path
    )
    assert '<a href="https://example.com/model" rel="nofollow noopener">' in markdown


def test_each_submission_has_a_page_with_its_numbers_checksums_and_items(board, tmp_path):
    paths = submission_pages.write_submission_pages(
        board, [], [], tmp_path / "out", CHECKOUT / "submissions", tmp_path / "no-data"
    )
    assert [p.name for p in paths] == [f"{entry.slug}.md" for entry in board]
    (tfidf,) = [entry for entry in board if entry.slug == "tfidf-baseline"]
    page = (tmp_path / "out" / "submissions" / "tfidf-baseline.md").read_text(encoding="utf-8")
    for name, scores in tfidf.record.tasks.items():
        assert scores.predictions_sha256 in page and scores.gold_sha256 in page
        for value in scores.official.values():
            if value is not None and f"{value:.2f}" in page:
                break
        else:
            raise AssertionError(f"no {name} number on the page")
        assert f'id="items-{name}"' in page  # its item browser
    assert "KLUE dev data used</dt><dd>no (declared)" in page
    assert tfidf.submission.model in page
    assert "shown as committed" in page  # no dev files in this build's data folder
    # A page of a submission no longer on the board goes.
    submission_pages.write_submission_pages(
        board[:1], [], [], tmp_path / "out", CHECKOUT / "submissions", tmp_path / "no-data"
    )
    assert sorted(p.name for p in (tmp_path / "out" / "submissions").iterdir()) == [
        "majority-baseline",  # its downloads
        "majority-baseline.md",
    ]


def test_the_results_page_and_the_toc_show_the_submissions(board, tmp_path):
    rows = submitted_rows(board)
    markdown = render([], tmp_path, rows)
    assert "recomputed from the predictions" in markdown
    assert markdown.count('<tbody class="submitted">') == 1
    toc = pages.table_of_contents(list(all_tasks().values()), [], CHECKOUT, rows)
    text = yaml.safe_dump(toc)
    assert "book/_generated/submissions/tfidf-baseline" in text
    results = [c for p in toc["parts"] for c in p["chapters"] if c.get("file") == "book/results"]
    assert [s["file"] for s in results[0]["sections"]] == [r.page for r in rows]
    # Without submissions, the toc is as it was.
    assert "sections" not in next(
        c
        for p in pages.table_of_contents(list(all_tasks().values()), [], CHECKOUT)["parts"]
        for c in p["chapters"]
        if c.get("file") == "book/results"
    )


def test_the_submissions_numbers_go_out_in_results_json_csv_and_model_index(board, tmp_path):
    rows = submitted_rows(board)
    frame, data = downloads.downloads([], tmp_path, rows)
    numbers = data["submissions"]
    (uas,) = [n for n in numbers if n["submission"] == "majority-baseline" and n["metric"] == "uas"]
    scores = board[0].record.tasks["dp"]
    assert uas["value"] == round(scores.official["uas"], 4)
    assert (uas["ci_low"], uas["ci_high"]) == (
        scores.intervals["uas"].low,
        scores.intervals["uas"].high,
    )
    assert uas["predictions_sha256"] == scores.predictions_sha256
    assert uas["gold_sha256"] == scores.gold_sha256 and uas["dev_data_used"] is False
    (las,) = [n for n in numbers if n["submission"] == "majority-baseline" and n["metric"] == "las"]
    assert las["corrected"] == {"dp-las-pad": scores.corrected["dp-las-pad"]["las"]}
    assert len(numbers) == sum(len(r.cells) for r in rows)
    csv = frame[frame["kind"] == "submission"]
    assert len(csv) == len(numbers)
    assert set(csv["source"]) == {entry.slug for entry in board}
    json.dumps(data)  # JSON as it is written

    paths = model_index.write_model_index([], tmp_path / "model-index", rows)
    assert [p.name for p in paths] == [f"{entry.slug}.yaml" for entry in board]
    snippet = yaml.safe_load(paths[0].read_text(encoding="utf-8"))
    results = snippet["model-index"][0]["results"]
    values = {(m["type"], m["value"]) for r in results for m in r["metrics"]}
    assert ("uas", round(scores.official["uas"], 2)) in values
    assert len(values) == len(rows[0].cells)
    assert "submissions/majority-baseline.yaml" in downloads.downloads_markdown(
        [], [], tmp_path, rows
    )


def test_the_paired_comparison_is_with_the_strongest_current_released_checkpoint_row():
    from kluebook.results.aggregation import Cell, Row
    from kluebook.tasks import get_task

    dp = get_task("dp")
    key = (dp.name, dp.metrics[0].key)

    def row(model, value, profile="paper", stale=""):
        cell = Cell([value], stale=stale)
        return Row(model, "reproduced", "base", "dev", {key: cell}, model=model, profile=profile)

    rows = [
        row("klue/roberta-base", 90.0),
        row("klue/roberta-large", 93.0),
        row("klue/roberta-small", 95.0, stale="code"),  # stale: never the reference
        row("kluebook/tiny-roberta", 99.0),  # no released checkpoint
        row("klue/bert-base", 98.0, profile="smoke"),  # a pipeline check
    ]
    assert submission_pages.strongest_reference(dp, rows).model == "klue/roberta-large"
    assert submission_pages.strongest_reference(dp, rows[2:]) is None
    # A reference whose runs are not here says why, in one line, instead of a comparison.
    line = submission_pages.comparison_html(dp, [], rows[1], [], "A")
    assert line.startswith("No paired comparison with `klue/roberta-large`: no succeeded dp run")
    none = submission_pages.comparison_html(dp, [], None, [], "A")
    assert none == "No released-checkpoint run of DP in this book: no paired comparison.\n"


def test_a_submission_is_compared_item_by_item_with_the_reference_runs(
    tmp_path, imperfect_predictions
):
    import random

    from conftest import valid_record

    from kluebook.data.loading import data_checksum, load_split
    from kluebook.results.aggregation import Cell, Row
    from kluebook.tasks import get_task, task_module

    nli = get_task("nli")
    gold = load_split(nli, "dev", "generated", None)
    lines = task_module(nli).gold_predictions(gold)
    (tmp_path / "tuned.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    run = valid_record(
        {
            "task": "nli",
            "model": "klue/roberta-base",
            "config": "tuned",
            "parameters": {"data_source": "generated"},
            "metrics": {},
            "data_checksum": data_checksum(nli, "generated", None),
            "predictions": "tuned.jsonl",
        }
    )
    key = ("nli", "accuracy")
    reference = Row(
        "klue/roberta-base", "reproduced", "base", "dev", {key: Cell([100.0])},
        model="klue/roberta-base", config="tuned", profile="paper",
    )  # fmt: skip
    poor = imperfect_predictions("nli", [dict(line) for line in lines], random.Random(1))
    html = submission_pages.comparison_html(nli, poor, reference, [run], "poor", tmp_path)
    parsed = Parsed(html)
    assert "this submission (A) against tuned (B), paired bootstrap" in parsed.text
    assert "Accuracy" in parsed.text and "B is better" in parsed.text


def test_a_task_page_shows_the_submissions_of_its_task(board, tmp_path):
    from kluebook.tasks import get_task

    rows = submitted_rows(board)
    text = pages.landing_page(get_task("dp"), [], [], [], tmp_path, rows)
    block = text[text.index('<tbody class="submitted">') :]
    block = block[: block.index("</tbody>")]
    assert 'href="../submissions/next-eojeol-baseline.html"' in block
    assert 'href="../submissions/majority-baseline.html"' in block
    assert "tfidf-baseline" not in text  # no DP predictions
    ynat = pages.landing_page(get_task("ynat"), [], [], [], tmp_path, rows)
    assert "next-eojeol-baseline" not in ynat and "tfidf-baseline" in ynat


def test_a_submission_pages_browsers_hold_a_sample_and_its_downloads_every_item(
    board, tmp_path, monkeypatch
):
    """However large the dev set, a page's item browsers hold `PAGE_ITEMS` items together,
    shared by its tasks, with a line saying how many of how many; every item is in the task's
    downloads beside the page, the same bytes from one build to the next, with no path of the
    machine."""
    monkeypatch.setattr(submission_pages, "PAGE_ITEMS", 50)
    out = tmp_path / "out"
    args = (board, [], [], out, CHECKOUT / "submissions", tmp_path / "no-data")
    submission_pages.write_submission_pages(*args)
    (majority,) = [entry for entry in board if entry.slug == "majority-baseline"]
    page = (out / "submissions" / "majority-baseline.md").read_text(encoding="utf-8")
    each = 50 // len(majority.record.tasks)
    for name, scores in majority.record.tasks.items():
        folder = CHECKOUT / "submissions" / "majority-baseline"
        total = sum(1 for _ in prediction_lines(folder / scores.predictions_file))
        assert total > each
        section = page.split(f'id="items-{name}"')[1].split("### ")[0]
        assert len(set(re.findall(r'id=\\?"(item-[^"\\]+)', section))) == each
        assert f"The table holds {each:,} of the {total:,} items, spread over the dev set." in page
        assert f"{{download}}`CSV <majority-baseline/{name}.items.csv>`" in page
        csv = out / "submissions" / "majority-baseline" / f"{name}.items.csv"
        jsonl = csv.with_suffix(".jsonl")
        assert len(pd.read_csv(csv)) == total and len(jsonl.read_text().splitlines()) == total
        for download in (csv, jsonl):
            assert str(tmp_path) not in download.read_text() and "/work" not in download.read_text()
    before = {p: p.read_bytes() for p in (out / "submissions").rglob("*") if p.is_file()}
    submission_pages.write_submission_pages(*args)
    assert {p: p.read_bytes() for p in (out / "submissions").rglob("*") if p.is_file()} == before


def test_a_browser_of_scored_items_holds_the_wrong_ones_first():
    correct = [True, False, True, False, None, False, True, True, False, True]
    frame = pd.DataFrame({"guid": [f"g{i}" for i in range(10)], "correct": correct})
    shown, said = submission_pages.items_shown(frame, 3)  # 3 of the 4 wrong, spread
    assert list(shown["guid"]) == ["g1", "g3", "g5"]  # g8 left out
    assert (
        said
        == "The table holds 3 of the 10 items: 3 of the 4 it gets wrong, spread over the dev set."
    )
    shown, said = submission_pages.items_shown(frame, 6)  # every wrong one, then the others
    assert list(shown["guid"]) == ["g0", "g1", "g3", "g5", "g6", "g8"]
    assert "every one of the 4 it gets wrong, then 2 of the others" in said
    shown, said = submission_pages.items_shown(frame, 10)
    assert len(shown) == 10 and said == "The table holds all 10 items."
    shown, _ = submission_pages.items_shown(frame.drop(columns="correct"), 5)  # no gold here
    assert list(shown["guid"]) == ["g0", "g2", "g4", "g6", "g8"]
