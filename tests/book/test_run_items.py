"""A run page's dev items: every item in an item browser (itables) with its text, gold,
prediction, whether they agree and the model's confidence; a permalink per item; a plain table
without JavaScript; the items and the record as downloads, linked from the run page and the
results page, the same bytes from one build to the next."""

import json
import math
import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from conftest import valid_record
from test_run_pages import record_of, spec

from kluebook.book import downloads, item_browser, run_items, run_pages
from kluebook.common.json_files import write_jsonl
from kluebook.data.loading import load_split
from kluebook.results import items
from kluebook.scoring.predicted_labels import label_lines
from kluebook.tasks import get_task, notebook_path, task_module, task_package

PAGE = "book/runs/ynat/smoke-kluebook--tiny-roberta-seed1.ipynb"


def ynat_run(root: Path, wrong: int = 3, **fields):
    """A YNAT smoke run in the book root `root`: its kept notebook, and predictions that are
    the gold but for the first `wrong` items; its spec and record."""
    run = spec()
    lines = task_module(run.task).gold_predictions(
        load_split(run.task, "dev", "generated", None), {}
    )
    for line in lines[:wrong]:
        line["label"] = "경제" if line["label"] != "경제" else "정치"
    predictions = root / "results/smoke/ynat/run.predictions.jsonl"
    predictions.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(predictions, lines)
    kept = root / "results/smoke/ynat/run.ipynb"
    nbformat.write(nbformat.read(notebook_path(run.task), as_version=4), kept)
    made = {"notebook": PAGE, "executed": "results/smoke/ynat/run.ipynb"}
    made["predictions"] = "results/smoke/ynat/run.predictions.jsonl"
    return run, record_of(run, **{**made, **fields})


def browser_options(html: str) -> dict:
    """The DataTables arguments itables wrote into a table's script."""
    text = html.split("let dt_args = ")[1].split(";\n")[0]
    return json.loads(text)


def test_a_run_page_browses_every_dev_item_with_its_gold_prediction_and_correctness(tmp_path):
    run, record = ynat_run(tmp_path)
    cells = nbformat.read(run_pages.render_page(record, run, tmp_path), as_version=4).cells
    about, table = cells[-3], cells[-2]
    assert about.source.startswith("## Dev items\n\nAll 250 dev items of this run.")
    assert cells[-1].source.startswith("## Run card")  # the card stays last
    assert table.metadata.tags == ["remove-input"]
    html = table.outputs[0].data["text/html"]
    options = browser_options(html)
    rows = json.loads(options["data_json"])
    assert len(rows) == 250  # every item, none downsampled away
    header = re.findall(r"<th>(\w+)</th>", options["table_html"])
    assert header == ["guid", "title", "gold", "prediction", "correct"]
    assert [row[header.index("correct")] for row in rows].count("no") == 3
    first = dict(zip(header, rows[0], strict=True))
    assert first["gold"] != first["prediction"] and first["correct"] == "no"
    assert 'href="#item-ynat-v1_dev_00000"' in first["guid"]  # the item's permalink
    # The library is the site's one copy, reached from the page's folder; so is the script that
    # keeps the address; a SearchBuilder offers the filters.
    assert "from '../../../_static/itables/dt_bundle.js'" in html
    assert 'src="../../../_static/kluebook-items.js"' in html
    assert options["layout"]["top1"] == "searchBuilder"


def test_without_javascript_the_items_are_a_plain_captioned_table(tmp_path):
    run, record = ynat_run(tmp_path)
    frame = items.run_items(run.task, record, tmp_path).frame
    html = item_browser.browser_html(frame, "items", PAGE.removesuffix(".ipynb"), "Dev items")
    fallback = html.split('<div id="items_fallback">')[1].split("</div>")[0]
    assert fallback.startswith("<table") and "<caption>Dev items</caption>" in fallback
    assert "<th" in fallback and "ynat-v1_dev_00000" in fallback
    # The interactive table starts hidden: only a script that runs swaps the two.
    assert '<table id="items" hidden="hidden">' in html


def test_texts_are_escaped_and_cut_in_the_table_and_whole_in_the_downloads():
    long = "<b>" + "가" * 400
    frame = pd.DataFrame({"guid": ["g 1"], "text": [long], "correct": [None]})
    html = item_browser.browser_html(frame, "t", "book/x", "Items")
    (row,) = json.loads(browser_options(html)["data_json"])
    assert row[0] == '<a id="item-g-1" href="#item-g-1">g 1</a>'  # a key with a space
    assert row[1].startswith("&lt;b&gt;가") and row[1].endswith("…")
    assert len(row[1]) == len("&lt;b&gt;") + item_browser.TEXT_LIMIT - 4 + len("…")
    assert row[2] == ""  # correctness unknown
    assert json.loads(items.jsonl_text(frame))["text"] == long


def test_the_downloads_hold_every_item_and_the_record_and_both_pages_link_them(tmp_path):
    run, record = ynat_run(tmp_path)
    run_pages.render_page(record, run, tmp_path)
    paths = run_items.download_paths(record, tmp_path)
    assert {p.name for p in paths.values()} == {
        "smoke-kluebook--tiny-roberta-seed1.predictions.jsonl",
        "smoke-kluebook--tiny-roberta-seed1.predictions.csv",
        "smoke-kluebook--tiny-roberta-seed1.predictions.parquet",
        "smoke-kluebook--tiny-roberta-seed1.record.json",
    }
    lines = paths["predictions.jsonl"].read_text(encoding="utf-8").splitlines()
    assert len(lines) == 250
    assert json.loads(lines[0])["correct"] is False and json.loads(lines[5])["correct"] is True
    csv = pd.read_csv(paths["predictions.csv"])
    assert list(csv.columns) == ["guid", "title", "gold", "prediction", "correct"]
    assert csv["correct"].sum() == 247
    parquet = pd.read_parquet(paths["predictions.parquet"])
    assert parquet["guid"].tolist() == csv["guid"].tolist()
    saved = json.loads(paths["record.json"].read_text(encoding="utf-8"))
    assert saved == record.as_dict()
    links = run_items.download_links(record, tmp_path)
    assert "{download}`JSON Lines </book/_generated/predictions/ynat/" in links
    page = nbformat.read(tmp_path / PAGE, as_version=4)
    assert links in page.cells[-3].source
    section = downloads.downloads_markdown([], [record], tmp_path)
    assert ":::{dropdown} The dev items of each run" in section and links in section


def test_two_renderings_write_the_same_bytes(tmp_path):
    run, record = ynat_run(tmp_path)
    files = [tmp_path / PAGE, *run_items.download_paths(record, tmp_path).values()]
    run_pages.render_page(record, run, tmp_path)
    first = [f.read_bytes() for f in files]
    for f in files:
        f.unlink()
    items._DEV_SPLITS.clear()  # read the data again, too
    run_pages.render_page(record, run, tmp_path)
    assert [f.read_bytes() for f in files] == first


def test_the_confidence_is_the_winning_probability_or_the_best_choices_share():
    assert items.confidence({"label": "x", "probs": [0.1, 0.7, 0.2]}) == 0.7
    assert items.confidence({"choice_logprobs": [0.0, 0.0]}) == 0.5
    assert items.confidence({"choice_logprobs": {"a": -1.0, "b": -1.0, "c": -1.0}}) == 0.3333
    assert items.confidence({"label": "x"}) is None


def test_a_classifiers_lines_carry_the_probability_of_their_label_which_the_browser_shows():
    records = [{"guid": "a"}, {"guid": "b"}]
    lines = label_lines(records, [[0.0, 0.0, math.log(2)], [3.0, 0.0, 0.0]], ["x", "y", "z"])
    assert lines == [
        {"guid": "a", "label": "z", "probability": 0.5},  # 2 / (1 + 1 + 2)
        {"guid": "b", "label": "x", "probability": round(math.e**3 / (math.e**3 + 2), 4)},
    ]
    assert [items.confidence(line) for line in lines] == [0.5, 0.9094]


@pytest.mark.parametrize("task_name", ["re", "sts", "wos"])
def test_each_kind_of_prediction_has_its_text_gold_and_confidence(tmp_path, task_name):
    task = get_task(task_name)
    gold = load_split(task, "dev", "generated", None)
    lines = task_module(task).gold_predictions(gold[:5], {})
    path = tmp_path / "results/predictions.jsonl"
    write_jsonl(path, lines)
    record = valid_record({"task": task_name, "predictions": "results/predictions.jsonl"})
    frame = items.run_items(task, record, tmp_path).frame
    assert len(frame) == len(lines)
    if task_name == "re":  # its relation probabilities: the gold's are one-hot
        assert frame["confidence"].tolist() == [1.0] * 5
        assert "sentence" in frame and "source" in frame and frame["correct"].all()
    if task_name == "sts":  # a score, right on the F1's side of 3; the pair as its text
        assert frame["correct"].all() and {"sentence1", "sentence2"} <= set(frame)
    if task_name == "wos":  # one item per turn, the dialogue's utterances as its text
        assert frame["guid"][0] == f"{gold[0]['guid']} turn 0"
        assert gold[0]["dialogue"][0]["text"] in frame["dialogue"][0]


def test_predictions_whose_gold_cannot_be_read_are_shown_alone(tmp_path):
    run, record = ynat_run(tmp_path)
    moved = record.model_copy(
        update={"data_source": "official", "parameters": {**record.parameters, "data_dir": "x"}}
    )
    found = items.run_items(run.task, moved, tmp_path)
    assert "lacks the ynat files" in found.missing_gold
    elsewhere = record.model_copy(
        update={
            "data_source": "official",
            "parameters": {**record.parameters, "data_dir": str(tmp_path / "elsewhere")},
        }
    )
    reason = items.run_items(run.task, elsewhere, tmp_path).missing_gold
    assert "lacks the ynat files" in reason and str(tmp_path) not in reason
    assert list(found.frame.columns) == ["guid", "prediction"]
    assert items.run_items(run.task, record.model_copy(update={"predictions": None})) is None


def test_a_prompted_runs_items_show_the_raw_answer_and_whether_it_could_be_read(tmp_path):
    task = get_task("nli")
    gold = load_split(task, "dev", "generated", None)[:3]
    lines = task_module(task).gold_predictions(gold, {})
    lines = [
        {**lines[0], "raw_answer": " 함의"},
        {**lines[1], "label": "neutral", "unparsable": True, "raw_answer": "모르겠다"},
        {**lines[2], "choice_logprobs": {"entailment": -1.0, "neutral": -1.0}},
    ]
    frame = items.items_frame(task, lines, gold)
    assert frame["raw_answer"].tolist()[:2] == [" 함의", "모르겠다"]
    assert frame["unparsable"].tolist()[:2] == [False, True]
    assert frame["confidence"].tolist()[2] == 0.5
    assert frame["correct"].tolist()[0] and frame["correct"].tolist()[2]  # extras not compared
    html = item_browser.browser_html(frame, "items", "book/x", "Items")
    header = re.findall(r"<th>(\w+)</th>", browser_options(html)["table_html"])
    rows = json.loads(browser_options(html)["data_json"])
    assert rows[1][header.index("unparsable")] == "yes"


def test_an_item_is_right_as_kluebook_compare_counts_it(tmp_path):
    """Correctness is the paired test's: MRC's second gold answer is right, an STS score on
    the gold's side of the F1's threshold is right and one across it wrong."""
    mrc = get_task("mrc")
    gold = [r for r in load_split(mrc, "dev", "generated", None) if len(r["answers"]) > 1][:2]
    lines = [
        {"guid": gold[0]["guid"], "answer": gold[0]["answers"][1]["text"]},
        {"guid": gold[1]["guid"], "answer": "아닌 답"},
    ]
    assert lines[0]["answer"] != gold[0]["answers"][0]["text"]  # not the first gold answer
    assert items.items_frame(mrc, lines, gold)["correct"].tolist() == [True, False]
    sts = get_task("sts")
    pairs = load_split(sts, "dev", "generated", None)
    high = [r for r in pairs if r["labels"]["real-label"] >= 4.0][:2]
    lines = [{"guid": high[0]["guid"], "score": 3.2}, {"guid": high[1]["guid"], "score": 1.0}]
    assert items.items_frame(sts, lines, high)["correct"].tolist() == [True, False]


def test_the_top_answers_are_res_most_probable_relations_or_a_ranked_runs_choices():
    re_task = get_task("re")
    gold = load_split(re_task, "dev", "generated", None)[:1]
    relations = task_package(re_task).data.RELATIONS
    probs = [0.0] * len(relations)
    probs[3], probs[7], probs[0], probs[9] = 0.5, 0.3, 0.15, 0.05
    line = {"guid": gold[0]["guid"], "label": relations[3], "probs": probs}
    frame = items.items_frame(re_task, [line], gold)
    expected = f"{relations[3]} 0.50; {relations[7]} 0.30; {relations[0]} 0.15"
    assert frame["top_answers"].tolist() == [expected]
    nli = get_task("nli")
    gold = load_split(nli, "dev", "generated", None)[:1]
    logprobs = {
        "entailment": math.log(0.2),
        "neutral": math.log(0.7),
        "contradiction": math.log(0.1),
    }
    line = {"guid": gold[0]["guid"], "label": "neutral", "choice_logprobs": logprobs}
    frame = items.items_frame(nli, [line], gold)
    assert frame["top_answers"].tolist() == ["neutral 0.70; entailment 0.20; contradiction 0.10"]


def test_a_prompted_items_prompt_and_raw_answer_are_collapsed_in_its_cell():
    task = get_task("nli")
    gold = load_split(task, "dev", "generated", None)[:2]
    lines = task_module(task).gold_predictions(gold, {})
    long_answer = "이 문장은 앞 문장과 같은 뜻이므로 답은 함의입니다. " * 3
    lines = [
        {**lines[0], "raw_answer": long_answer, "item_prompt": "전제: 하나\n가설: 둘\n답:"},
        {**lines[1], "raw_answer": "함의", "item_prompt": "짧은 질문"},
    ]
    frame = items.items_frame(task, lines, gold)
    assert frame["prompt"].tolist() == ["전제: 하나\n가설: 둘\n답:", "짧은 질문"]
    html = item_browser.browser_html(frame, "items", "book/x", "Items", items.COLLAPSED)
    header = re.findall(r"<th>(\w+)</th>", browser_options(html)["table_html"])
    rows = json.loads(browser_options(html)["data_json"])
    answer = rows[0][header.index("raw_answer")]
    summary = " ".join(long_answer[: item_browser.SUMMARY_LIMIT - 1].split()) + "…"
    # Opened, the summary says "hide" (the stylesheet hides its opening): the text once.
    assert answer.startswith(
        f'<details class="text"><summary><span class="opening">{summary}</span>'
        '<span class="hide">hide</span></summary>'
    )
    assert long_answer.strip()[:200] in answer  # the whole text (to the cell's limit) inside
    assert rows[1][header.index("raw_answer")] == "함의"  # a short text is shown as it is
    # A prompt keeps its line breaks, as HTML line breaks (the cell is HTML), never as "\n".
    assert rows[0][header.index("prompt")] == "전제: 하나<br>가설: 둘<br>답:"
