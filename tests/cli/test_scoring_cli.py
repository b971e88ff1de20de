"""`kluebook score`: JSON on stdout, one-line errors naming the guid, non-zero exit."""

import json
from collections import defaultdict

import pytest

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl, write_jsonl
from kluebook.notebook.steps import Run
from kluebook.tasks import get_task, task_module
from kluebook.tasks.dp.metric import DEPRELS
from kluebook.tasks.ynat import data as ynat
from kluebook.tasks.ynat import synthetic as synthetic_ynat
from kluebook.training.recipes import resolve_recipe


@pytest.fixture
def gold_file(tmp_path):
    path = tmp_path / "ynat-v1.1_dev.json"
    ynat.write_official(synthetic_ynat.generate(seed=5, train_size=1, dev_size=40)["dev"], path)
    return path


def test_gold_as_prediction_scores_100(kluebook, book_sources, gold_file, tmp_path):
    pred = tmp_path / "pred.jsonl"
    write_jsonl(
        pred, [{"guid": r["guid"], "label": r["label"]} for r in ynat.read_official(gold_file)]
    )
    result = kluebook(book_sources, "score", "ynat", "--gold", str(gold_file), "--pred", str(pred))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"macro_f1": 100.0}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: rows[1:], "missing prediction for guid ynat-v1_dev_00000"),
        (lambda rows: [*rows, rows[3]], "duplicate guid ynat-v1_dev_00003"),
        (lambda rows: [*rows, {"guid": "nope", "label": "정치"}], "unknown guid nope"),
        (
            lambda rows: [{**rows[0], "label": "sports"}, *rows[1:]],
            "ynat-v1_dev_00000: unknown label",
        ),
    ],
)
def test_bad_predictions_get_a_one_line_error(
    kluebook, book_sources, gold_file, tmp_path, edit, message
):
    rows = [{"guid": r["guid"], "label": r["label"]} for r in ynat.read_official(gold_file)]
    pred = tmp_path / "pred.jsonl"
    write_jsonl(pred, edit(rows))
    result = kluebook(book_sources, "score", "ynat", "--gold", str(gold_file), "--pred", str(pred))
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_score_matches_the_official_macro_f1_on_the_real_dev_file(
    kluebook, book_sources, klue_file, tmp_path
):
    from sklearn.metrics import f1_score

    gold_path = klue_file("ynat-v1.1/ynat-v1.1_dev.json", "ynat-v1.1/ynat-v1.1_dev.partial.json")
    gold = ynat.read_official(gold_path)
    # A deterministic, imperfect prediction: every 3rd headline is shifted to the next topic.
    predicted = [
        ynat.LABELS[(ynat.LABELS.index(r["label"]) + (i % 3 == 0)) % 7] for i, r in enumerate(gold)
    ]
    pred = tmp_path / "pred.jsonl"
    write_jsonl(
        pred, [{"guid": r["guid"], "label": p} for r, p in zip(gold, predicted, strict=True)]
    )
    result = kluebook(book_sources, "score", "ynat", "--gold", str(gold_path), "--pred", str(pred))
    official = 100 * f1_score([r["label"] for r in gold], predicted, average="macro")
    assert json.loads(result.stdout)["macro_f1"] == pytest.approx(official, abs=1e-9)


def test_unknown_task_is_rejected(kluebook, book_sources, tmp_path):
    result = kluebook(book_sources, "score", "topics", "--pred", str(tmp_path / "x.jsonl"))
    assert result.returncode == 2 and "unknown task 'topics'" in result.stderr


@pytest.fixture
def ner_files(tmp_path):
    """A small NER dev file and predictions that carry the boundary tags, one sentence's
    last padded position predicted as an entity (which the official code scores)."""
    task = get_task("ner")
    gold = task_module(task).generate(seed=3, train_size=1, dev_size=30)["dev"]
    task_module(task).write_official(gold, tmp_path / "ner_dev.tsv")
    lines = [{"guid": r["guid"], "tags": r["tags"], "boundary": ["O", "O"]} for r in gold]
    lines[0]["boundary"] = ["O", "B-PS"]
    write_jsonl(tmp_path / "with_boundary.jsonl", lines)
    write_jsonl(tmp_path / "plain.jsonl", [{"guid": r["guid"], "tags": r["tags"]} for r in gold])
    return task, gold, tmp_path


def _run(task, profile: str, model: str, tmp_path):
    """A run of `task` as a notebook sets it up, with that profile's recipe."""
    recipe = resolve_recipe(task, model, profile, {})
    return Run(task, {"model": model}, recipe, None, tmp_path)


@pytest.mark.parametrize(
    ("profile", "model", "settings"),
    [
        ("paper", "klue/roberta-base", ["--set", "ner_boundary_tags=model"]),
        ("smoke", "kluebook/tiny-roberta", ["--set", "ner_boundary_tags=outside"]),
    ],
)
def test_a_run_and_kluebook_score_agree_given_the_runs_switches(
    kluebook, book_sources, ner_files, profile, model, settings
):
    task, gold, folder = ner_files
    run = _run(task, profile, model, folder)
    inside = run.score(gold, read_jsonl(folder / "with_boundary.jsonl"))
    args = ["score", "ner", "--gold", str(folder / "ner_dev.tsv")]
    result = kluebook(book_sources, *args, "--pred", str(folder / "with_boundary.jsonl"), *settings)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == inside
    assert inside["char_f1"] < 100.0  # the boundary prediction is scored


def test_a_switch_changes_the_scoring_only_where_it_is_passed(kluebook, book_sources, ner_files):
    task, gold, folder = ner_files
    args = ["score", "ner", "--gold", str(folder / "ner_dev.tsv"), "--pred"]
    plain = kluebook(book_sources, *args, str(folder / "plain.jsonl"))
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["char_f1"] == 100.0
    # A paper run scores the boundary tags: its predictions must carry them, here and in the run.
    refused = kluebook(
        book_sources, *args, str(folder / "plain.jsonl"), "--set", "ner_boundary_tags=model"
    )
    assert refused.returncode == 2
    assert "(ner_boundary_tags: model): give each line its `boundary` tags" in refused.stderr
    paper_run = _run(task, "paper", "klue/roberta-base", folder)
    with pytest.raises(KluebookError, match="ner_boundary_tags: model"):
        paper_run.score(gold, read_jsonl(folder / "plain.jsonl"))


@pytest.mark.parametrize(
    ("task", "setting", "message"),
    [
        ("ynat", "ner_boundary_tags=model", "ner_boundary_tags is not a switch of ynat"),
        ("ner", "ner_boundary_tags=both", "recipe switch ner_boundary_tags must be one of"),
        ("ner", "eval_schedule=trainer", "eval_schedule is not a switch of ner"),
    ],
)
def test_a_switch_the_task_lacks_or_a_value_it_refuses_is_one_line(
    kluebook, book_sources, tmp_path, task, setting, message
):
    result = kluebook(
        book_sources, "score", task, "--pred", str(tmp_path / "x.jsonl"), "--set", setting
    )
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_corrected_prints_each_errata_value_beside_the_official_ones(
    kluebook, book_sources, tmp_path
):
    task = get_task("dp")
    records = task_module(task).generate(seed=2, train_size=1, dev_size=20)["dev"]
    gold = tmp_path / "dp_dev.tsv"
    task_module(task).write_official(records, gold)
    rows = task_module(task).gold_predictions(records)
    rows[0]["heads"] = [0] * len(rows[0]["heads"])  # wrong heads: PAD predictions
    pred = tmp_path / "pred.jsonl"
    write_jsonl(pred, rows)
    result = kluebook(
        book_sources, "score", "dp", "--gold", str(gold), "--pred", str(pred), "--corrected"
    )
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    official, corrected = printed["official"], printed["corrected"]
    assert set(corrected) == {"dp-las-pad"}  # generated data: no data erratum applies
    assert printed["alternative"] == {}  # DP has no misleadingly named metric
    assert corrected["dp-las-pad"] == {"las": official["las_wrong_heads_as_errors"]}
    # Labels all right: each class's F1 is 2r / (2r + 2w), the accuracy of its heads.
    hits = defaultdict(list)
    for record, row in zip(records, rows, strict=True):
        pairs = zip(record["heads"], row["heads"], strict=True)
        for label, (gold_head, head) in zip(record["deprels"], pairs, strict=True):
            hits[label if DEPRELS.index(label) < 15 else "OTHERS"].append(gold_head == head)
    accuracies = [100 * sum(h) / len(h) for h in hits.values()]
    assert official["las_wrong_heads_as_errors"] == pytest.approx(sum(accuracies) / len(accuracies))
    assert official["las_wrong_heads_as_errors"] < 100.0


def test_corrected_prints_a_naming_problem_s_value_as_an_alternative_not_a_correction(
    kluebook, book_sources, tmp_path
):
    task = get_task("wos")
    records = task_module(task).generate(seed=2, train_dialogues=1, dev_dialogues=4)["dev"]
    gold = tmp_path / "wos-v1.1_dev.json"
    gold.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    rows = task_module(task).gold_predictions(records)
    for row in rows[::2]:
        row["state"] = row["state"][:1]  # every other turn keeps one slot of its state
    pred = tmp_path / "pred.jsonl"
    write_jsonl(pred, rows)
    result = kluebook(
        book_sources, "score", "wos", "--gold", str(gold), "--pred", str(pred), "--corrected"
    )
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    official = printed["official"]
    assert printed["alternative"] == {
        "wos-slot-f1-turn-mean": {"slot_f1": official["slot_f1_pooled"]}
    }
    assert "wos-slot-f1-turn-mean" not in printed["corrected"]
    assert official["slot_f1_pooled"] != official["slot_f1"]
