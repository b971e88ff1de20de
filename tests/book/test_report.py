"""The results: one KLUE table (published, reproduced and smoke rows, KLUE's marks), the gap to
the published numbers, a figure per task, the downloads and the status page."""

import json
import re

import pandas as pd
import pytest
import yaml
from conftest import valid_record

from kluebook.book import report, result_figures, results_page, submission_pages
from kluebook.book.status_page import render_status
from kluebook.book.submitted import submitted_rows
from kluebook.common.paths import CHECKOUT
from kluebook.recording.records import write_record
from kluebook.results.aggregation import reproduced_rows
from kluebook.submissions.board import load_board
from kluebook.tasks import get_task


@pytest.fixture(autouse=True)
def no_figures(request, monkeypatch):
    """Figures take seconds; only the test about them draws them."""
    if "figure" not in request.node.name:
        monkeypatch.setattr(result_figures, "task_figure", lambda *args: None)


def record(seed: int, value: float, status: str = "succeeded", model="kluebook/tiny-roberta"):
    return {
        "task": "ynat",
        "profile": "smoke",
        "model": model,
        "seed": seed,
        "data_source": "generated",
        "metrics": {"macro_f1": value},
        "status": status,
        "error": "ValueError: boom",
        "wall_time_s": 12.5,
        "finished_at": "2026-01-02T03:04:05+00:00",
        "device": "cpu",
        "git_commit": "0123456789abcdef",
    }


def paper(seed: int, values: dict, task="ynat", model="klue/roberta-base", config="default"):
    return {
        **record(seed, 0.0, model=model),
        "task": task,
        "profile": "paper",
        "data_source": "official",
        "config": config,
        "metrics": values,
    }


def write(tmp_path, *records):
    for i, r in enumerate(records):
        write_record(tmp_path / "results" / f"{i}.json", valid_record(r))
    return report.write_report(tmp_path / "out", tmp_path / "results")


def cell_texts(markdown: str, row_label: str) -> list[str]:
    """The number cells of the table row whose model cell holds `row_label`."""
    row = next(r for r in markdown.split("<tr>") if row_label in r.split("</th>")[0])
    return [re.sub(r"<[^>]+>", " ", c).split() for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]


def test_one_table_with_every_metric_published_rows_and_smoke_rows_apart(tmp_path):
    failed = {**record(3, 0.0, "failed"), "metrics": None}
    paths = write(tmp_path, record(1, 80.0), record(2, 90.0), failed)
    markdown = paths[0].read_text().split('<div id="klue-table_fallback">')[1]  # the plain table
    heads = re.findall(
        r'<th class="metric" scope="col"><a href="([^"]+)"[^>]*>([^<]+)</a>', markdown
    )
    metrics = [label for _, label in heads]
    assert len(metrics) == 14 and metrics[:3] == ["Macro F1", "Pearson r", "F1"]
    # Each header links to its task's metric definitions; the quirky ones carry a note.
    assert heads[0][0] == "_generated/methods/ynat.html#methods-ynat-metrics"
    notes = re.findall(r'<p class="klue-note" id="klue-metric-(\w+)-(\w+)">', markdown)
    assert ("dp", "uas") in notes and ("ner", "char_f1") in notes and ("mrc", "rouge_w") in notes
    assert ("ynat", "macro_f1") not in notes
    tasks = re.findall(r'class="task" scope="colgroup"><a [^>]+>([^<]+)</a></th>', markdown)
    assert tasks == ["YNAT", "STS", "NLI", "NER", "RE", "DP", "MRC", "WoS"]
    published = markdown.split('<tbody class="published">')[1].split("</tbody>")[0]
    assert published.count("<tr>") == 9 and "test<sup>" in published
    assert 'href="https://huggingface.co/klue/bert-base">KLUE-BERT-base</a>' in published
    assert "111M params" in published and "337M params" in published
    # The published source, linked at its commit; the 2021 table as the dev reference.
    assert "KLUE/blob/3efd98708a40ff49251fddde35453f8fbb11f536/README.md" in markdown
    reference = markdown.split('<tbody class="dev-reference">')[1].split("</tbody>")[0]
    assert reference.count("<tr>") == 9 and "dev<sup>" in reference
    assert "Dev split, by the evidence" in markdown
    smoke = markdown.split('<tbody class="pipeline-check">')[1].split("</tbody>")[0]
    assert "not a reproduction" in smoke
    ynat = cell_texts(smoke, "kluebook/tiny-roberta")[0]
    assert ynat == ["85.00", "±", "7.07", "·", "n=2", "s1", "s2"]  # mean 85, sample sd sqrt(50)
    assert "<strong>" not in smoke  # a pipeline check is not ranked
    assert "No paper-profile run yet" in markdown
    assert "## Failed runs" in markdown and "seed 3: ValueError: boom" in markdown


def test_klue_marks_best_in_bold_and_best_base_model_in_italics(tmp_path):
    markdown = write(tmp_path, record(1, 80.0))[0].read_text()
    published = markdown.split('<tbody class="published">')[1].split("</tbody>")[0]
    assert "<strong>86.06</strong>" in published  # XLM-R-large, the best YNAT score
    assert "<em>85.73</em>" in published  # KLUE-BERT-base, the best of the base models
    assert "<strong><em>86.11</em></strong>" in published  # KoELECTRA-base NER: both


def test_reproduced_rows_link_their_runs_and_show_their_gap_to_the_published_numbers(tmp_path):
    notebook = "book/runs/ynat/paper-klue--roberta-base-seed1.ipynb"
    (tmp_path / notebook).parent.mkdir(parents=True)
    (tmp_path / notebook).write_text("{}")
    records = [
        {**paper(1, {"macro_f1": 86.0}), "notebook": notebook},
        paper(2, {"macro_f1": 84.0}),
        paper(1, {"macro_f1": 70.0}, model="klue/bert-base"),
        paper(1, {"accuracy": 80.0}, task="nli"),
    ]
    markdown = results_page.render([valid_record(r) for r in records], root=tmp_path)
    reproduced = markdown.split('<tbody class="reproduced">')[1].split("</tbody>")[0]
    assert "Reproduced: paper profile, dev (KLUE v1.1)" in reproduced
    # A seed links to the item browser of its run (its page's items section).
    assert 'href="runs/ynat/paper-klue--roberta-base-seed1.html#items"' in reproduced
    assert cell_texts(reproduced, "klue/roberta-base")[0][:5] == ["85.00", "±", "1.41", "·", "n=2"]
    assert "<strong><em>85.00</em></strong>" in reproduced  # best, and a base-size model
    assert "<em>70.00</em>" not in reproduced
    gap = markdown.split("## Reproduced minus published")[1].split("## Figures")[0]
    assert "Dev and test are different sets" in gap
    assert "-0.07" in gap  # klue/roberta-base YNAT: 85.00 dev minus 85.07 test
    assert "-4.83" in gap  # klue/roberta-base NLI: 80.00 dev minus 84.83 test
    assert "-15.73" in gap  # klue/bert-base YNAT: 70.00 minus 85.73


def interactive_table(markdown: str) -> str:
    """The interactive KLUE table as the page holds it (its script builds its rows)."""
    return markdown.split('<table id="klue-table" hidden="hidden">')[1].split("</table>")[0]


def test_the_page_holds_the_klue_table_once_with_what_its_interactive_copy_needs(tmp_path):
    """The plain table, once: the interactive copy (a Block column to filter by) is built from
    it in the browser, so the page holds only its caption and the script that builds it; each
    block's section row names its block; KLUE's marks and the footnote links; each cell's seeds
    link to the item browsers of exactly the runs its cell pools."""
    pages = []
    for seed in (1, 2):
        pages.append(f"book/runs/ynat/paper-klue--roberta-base-seed{seed}.ipynb")
        (tmp_path / pages[-1]).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / pages[-1]).write_text("{}")
    records = [
        {**paper(1, {"macro_f1": 86.0}), "notebook": pages[0]},
        {**paper(2, {"macro_f1": 84.0}), "notebook": pages[1]},
        paper(1, {"macro_f1": 70.0}, model="klue/bert-base"),
        record(1, 80.0),
    ]
    runs = [valid_record(r) for r in records]
    markdown = results_page.render(runs, root=tmp_path)
    assert '<div id="klue-table_fallback"><table class="klue-table">' in markdown
    assert "_static/itables/dt_bundle.js" in markdown and "unpkg" not in markdown
    assert '<script type="module" src="../_static/kluebook-klue-table.js">' in markdown
    assert re.sub(r"<caption[^>]*>.*?</caption>", "", interactive_table(markdown)).strip() == ""
    plain = markdown.split('<div id="klue-table_fallback">')[1].split("</table>")[0]
    section = markdown.split("## The KLUE table")[1].split("\n## ")[0]
    head = '<th class="model" scope="row">'
    assert section.count(head) == plain.count(head) > 0  # every model row, once
    blocks = re.findall(r'<tbody class="([\w-]+)"><tr class="section" data-block="([^"]+)">', plain)
    assert blocks[:2] == [("published", "Published"), ("dev-reference", "Dev reference")]
    assert ("reproduced", "Reproduced, paper, dev (KLUE v1.1)") in blocks
    assert ("pipeline-check", "Smoke, dev (generated)") in blocks
    assert "<strong>86.06</strong>" in plain and "<strong><em>86.11</em></strong>" in plain
    assert 'test<sup><a href="#klue-note-a">a</a></sup>' in plain
    assert '<p class="klue-note" id="klue-note-a">' in markdown
    assert 'href="#klue-metric-dp-uas"' in plain
    # The cells' run links are the runs the cells pool (pooling), to their items.
    for row in reproduced_rows(runs, tmp_path):
        for cell in row.cells.values():
            for _, page in cell.runs:
                if page:
                    assert f'href="{page.removeprefix("book/")}.html#items"' in plain
    linked = re.findall(r'href="(runs/[^"]+)"', plain)
    assert sorted(set(linked)) == [
        "runs/ynat/paper-klue--roberta-base-seed1.html#items",
        "runs/ynat/paper-klue--roberta-base-seed2.html#items",
    ]
    sortable = re.findall(r'data-order="([\d.]+)">', plain)
    assert "85.0000" in sortable  # the mean of the two seeds, the value a sort compares


def test_a_cells_notes_are_short_marks_explained_once_below_the_table(tmp_path):
    """A stale cell, one with an older run left out and one without an interval carry short
    marks, each linked to its one explanation below the table, and each labelled with what it
    means for that cell; a cell's parts are apart in its text (read aloud or copied)."""
    from kluebook.book.klue_table import Section, cell_html, table_html
    from kluebook.results.aggregation import Cell
    from kluebook.tasks import get_task

    (row,) = reproduced_rows([valid_record(record(1, 80.0))], tmp_path)
    key = ("ynat", "macro_f1")
    marked = Cell(
        [80.0, 82.0],
        [(1, None), (2, None)],
        stale="task code",
        not_pooled=2,
        no_interval="one seed",
    )
    row.cells[key] = marked
    html_text = table_html([Section("Mine", [row])], [get_task("ynat")], "book/results")
    cell = cell_html(row, marked, "", "book/results")
    assert 'href="#klue-mark-stale"' in cell and 'aria-label="stale: task code changed"' in cell
    assert ">+2</a>" in cell and 'aria-label="2 older runs not pooled"' in cell
    assert 'aria-label="no interval: one seed"' in cell and "stale: task code" not in re.sub(
        r'"[^"]*"', "", cell
    )  # the label only, never a sentence in the cell
    for note in ("stale", "not-pooled", "no-interval"):
        assert html_text.count(f'id="klue-mark-{note}"') == 1
    assert 'id="klue-mark-degenerate"' not in html_text  # no such cell, no such note
    text = re.sub(r"<[^>]+>", "", cell)
    assert "81.00" in text and " ± 1.41 · n=2 s1 s2" in text


def test_configurations_are_separate_rows_and_seeds_are_pooled_only_within_one(tmp_path):
    tuned = {"config": "learning_rate=3e-05"}
    rows = [(1, 80.0, {}), (2, 90.0, {}), (1, 50.0, tuned), (2, 60.0, tuned)]
    paths = write(tmp_path, *({**record(seed, value), **extra} for seed, value, extra in rows))
    markdown = paths[0].read_text()
    plain = markdown.split('<div id="klue-table_fallback">')[1]  # not the interactive copy
    assert plain.count("<code>kluebook/tiny-roberta</code>") == 2
    assert markdown.count("<code>kluebook/tiny-roberta</code>") == 2  # the table, once
    assert cell_texts(markdown, "learning_rate=3e-05")[0][0] == "55.00"
    data = json.loads(paths[2].read_text())
    means = {a["config"]: a["mean"] for a in data["aggregates"]}
    assert means == {"default": 85.0, "learning_rate=3e-05": 55.0}


def test_downloads_a_csv_and_a_json_of_runs_aggregates_and_published_numbers(tmp_path):
    failed = {**record(3, 0.0, "failed"), "metrics": None}
    paths = write(tmp_path, record(1, 80.0), record(2, 90.0), failed)
    csv = pd.read_csv(paths[1])
    assert list(csv.columns[:4]) == ["kind", "task", "metric", "profile"]
    assert csv["kind"].value_counts().to_dict() == {"published": 126, "run": 3, "aggregate": 1}
    aggregate = csv[csv["kind"] == "aggregate"].iloc[0]
    assert (aggregate["seeds"], aggregate["value"]) == (2, 85.0)
    assert round(aggregate["sd"], 2) == 7.07
    assert csv[(csv["kind"] == "run") & (csv["status"] == "failed")]["seed"].tolist() == [3]
    data = json.loads(paths[2].read_text())
    assert len(data["runs"]) == 3 and data["runs"][2]["error"] == "ValueError: boom"
    assert len(data["published"]) == 126 and data["published"][0]["split"] == "test"


def test_a_figure_per_task_and_a_model_index_per_reproduced_model(tmp_path):
    paths = write(tmp_path, paper(1, {"macro_f1": 86.0}), paper(2, {"macro_f1": 84.0}))
    figures = [p for p in paths if p.suffix == ".svg"]
    assert [p.stem for p in figures] == ["ynat", "sts", "nli", "ner", "re", "dp", "mrc", "wos"]
    assert figures[0].read_text().startswith("<?xml")
    (snippet,) = [p for p in paths if p.parent.name == "model-index"]
    card = yaml.safe_load(snippet.read_text())
    (result,) = card["model-index"][0]["results"]
    assert card["model-index"][0]["name"] == "klue/roberta-base"
    assert result["task"]["type"] == "text-classification"
    assert result["dataset"] == {
        "name": "KLUE YNAT: official KLUE v1.1 dev files",
        "type": "klue/klue",
        "config": "ynat",
        "split": "validation",
    }
    assert result["metrics"][0]["value"] == 85.0 and result["metrics"][0]["type"] == "macro_f1"


def test_the_status_page_links_every_run_and_lists_the_errors(tmp_path):
    notebook = "book/runs/ynat/smoke-kluebook--tiny-roberta-seed1.ipynb"
    (tmp_path / notebook).parent.mkdir(parents=True)
    (tmp_path / notebook).write_text("{}")
    failed = {**record(3, 0.0, "failed"), "metrics": None}
    runs = [valid_record({**record(1, 80.0), "notebook": notebook}), valid_record(failed)]
    status = render_status(runs, tmp_path)
    assert "## Topic classification (YNAT)" in status
    assert "* - [kluebook/tiny-roberta · smoke · seed 1](/book/runs/ynat/smoke-" in status
    assert "* - kluebook/tiny-roberta · smoke · seed 3\n  - **failed** (below)\n" in status
    assert "- kluebook/tiny-roberta · smoke · seed 3: ValueError: boom" in status


def test_the_status_page_wraps_a_configuration_between_its_settings(tmp_path):
    """A run's configuration reads with a space after each comma, so a narrow column wraps its
    name between settings, never inside one (`dev_limit=2|0`); each part is still escaped."""
    prompted = {**record(1, 80.0), "config": "prompted,dev_limit=20,shots=0"}
    hostile = {**record(2, 80.0), "config": "prompted,x=<b>[a](b)"}
    status = render_status([valid_record(prompted), valid_record(hostile)], tmp_path)
    assert "kluebook/tiny-roberta · smoke · prompted, dev_limit=20, shots=0 · seed 1" in status
    assert "smoke · prompted, x=\\<b\\>\\[a\\](b) · seed 2" in status


def test_no_records_gives_a_page_that_says_so(tmp_path):
    markdown = report.write_report(tmp_path / "out", tmp_path / "none")[0].read_text()
    assert "No paper-profile run yet" in markdown
    assert "Model-index snippets appear here once a run has finished" in markdown


def test_a_figure_of_a_task_with_no_scores_among_the_rows_says_so(tmp_path):
    rows = reproduced_rows([valid_record(record(1, 80.0))])  # a YNAT smoke run, nothing else
    sts = get_task("sts")
    assert result_figures.panels(sts, rows, []) == [(sts.metrics[0], [], True)]
    result_figures.task_figure(sts, rows, [], tmp_path / "sts.svg")
    assert "no results yet" in (tmp_path / "sts.svg").read_text()


def test_a_figure_draws_a_model_named_like_math_as_its_text(tmp_path):
    model = r"$\frac{a$ <b>"  # mathtext could not parse it
    rows = reproduced_rows([valid_record(record(1, 80.0, model=model))])
    result_figures.task_figure(get_task("ynat"), rows, [], tmp_path / "ynat.svg")
    assert (tmp_path / "ynat.svg").read_text().startswith("<?xml")


def test_a_build_makes_the_submitted_rows_once_and_hands_them_down(tmp_path, monkeypatch):
    """`write_generated` makes the submitted rows once, from the board it loaded once, and hands
    the same rows to the results and submission pages (`write_report`) and to the task pages
    and contents (`write_pages`, with the board's entries their side-by-side views offer)."""
    board = load_board(CHECKOUT / "submissions", None, warn=False)
    made, handed = [], {}

    def make(entries):
        made.append(submitted_rows(entries))
        return made[-1]

    def received(name):
        return lambda *args: handed.__setitem__(name, args) or []

    monkeypatch.setattr(report, "submitted_rows", make)
    monkeypatch.setattr(report, "write_report", received("report"))
    monkeypatch.setattr(report, "write_pages", received("pages"))
    report.write_generated(tmp_path / "out", tmp_path / "results", board)
    assert len(made) == 1 and len(made[0]) == len(board.entries) == 3
    assert handed["report"][3] is board.entries and handed["report"][4] is made[0]
    assert handed["pages"][2] is made[0] and handed["pages"][3] is board.entries


def test_the_report_given_the_submitted_rows_makes_none(tmp_path, monkeypatch):
    """Given the rows, the results page, the downloads and the submission pages use them."""
    board = load_board(CHECKOUT / "submissions", None, warn=False).entries
    rows = submitted_rows(board)

    def refuse(entries):
        raise AssertionError("the submitted rows made again")

    monkeypatch.setattr(report, "submitted_rows", refuse)
    monkeypatch.setattr(submission_pages, "submitted_rows", refuse)
    paths = report.write_report(tmp_path / "out", tmp_path / "none", board=board, submitted=rows)
    assert {f"{entry.slug}.md" for entry in board} <= {path.name for path in paths}
    assert "recomputed from the predictions" in (tmp_path / "out" / "results.md").read_text()
