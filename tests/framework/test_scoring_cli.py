"""`kluebook score`: JSON on stdout, one-line errors naming the guid, non-zero exit."""

import json

import pytest

from kluebook.json_files import write_jsonl
from kluebook.tasks.ynat import data as ynat
from kluebook.tasks.ynat import synthetic as synthetic_ynat


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
