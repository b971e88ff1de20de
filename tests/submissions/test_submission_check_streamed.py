"""`check_submission` on RE, MRC and WoS, whose lines are now checked one at a time by their
task's `check_line` (streamed, as the other tasks are): the same refusals as when the official
scorer judged the whole file, one line per problem. On generated dev files in the official
layouts (the real RE and MRC dev files are not at hand)."""

import dataclasses

import pytest
from support.submissions import make_submission

from kluebook.submissions import check
from kluebook.submissions.check import check_submission
from kluebook.tasks import get_task, task_module

STRUCTURED = ("re", "mrc", "wos")


def gold_lines(gold: dict, name: str) -> list[dict]:
    return task_module(get_task(name)).gold_predictions(gold[name], {})


def test_perfect_predictions_pass_with_a_line_per_gold_key(tmp_path, generated_structured_dev):
    data_dir, gold = generated_structured_dev
    perfect = {name: gold_lines(gold, name) for name in STRUCTURED}
    report = check_submission(make_submission(tmp_path / "perfect", perfect), data_dir)
    assert report.all_problems == []
    turns = sum(len(task_module(get_task("wos")).gold_keys([r])) for r in gold["wos"])
    assert {t.task: t.lines for t in report.tasks} == {
        "re": len(gold["re"]),
        "mrc": len(gold["mrc"]),
        "wos": turns,
    }
    assert turns > len(gold["wos"])  # one line per user turn, not per dialogue


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("re", "{guid}"),
        ("mrc", "{guid}"),
        ("wos", "{guid} turn {turn}"),
    ],
)
def test_missing_duplicate_and_unknown_keys_are_listed(
    tmp_path, generated_structured_dev, name, shown
):
    data_dir, gold = generated_structured_dev
    rows = gold_lines(gold, name)
    missing, duplicated = rows[7], rows[5]
    unknown = {**rows[8], "guid": "not-a-dev-guid"}
    edited = [row for row in rows if row is not missing] + [dict(duplicated), unknown]
    lines = check_submission(make_submission(tmp_path / "m", {name: edited}), data_dir)
    file = f"{name}.jsonl"
    assert lines.all_problems == [
        f"{file}: 1 missing guids: {shown.format(**missing)}",
        f"{file}: 1 duplicate guids: {shown.format(**duplicated)}",
        f"{file}: 1 unknown guids: {shown.format(**unknown)}",
    ]


def _edit(rows: list[dict], edits: list[dict]) -> list[dict]:
    return [{**row, **edits[i]} if i < len(edits) else row for i, row in enumerate(rows)]


@pytest.mark.parametrize(
    ("name", "edits", "expected"),
    [
        (
            "re",
            [{"label": "per:job"}, {"label": None}],
            "2 lines with a label outside the label set: {0} 'per:job', {1} None",
        ),
        (
            "re",
            [{"probs": [1 / 29] * 29}, {"probs": None}],
            "2 lines with a probs list of other than 30 numbers: {0} 29, {1} NoneType",
        ),
        (
            "re",
            [{"probs": [1.5, -0.5] + [0.0] * 28}, {"probs": [True] + [0.0] * 29}],
            "2 lines with a probs value that is negative or not a finite number: "
            "{0} -0.5, {1} True",
        ),
        (
            "re",
            [{"probs": [0.5, 0.6] + [0.0] * 28}],
            "1 lines with a probs list not summing to 1: {0} 1.1",
        ),
        (
            "mrc",
            [{"answer": None}, {"answer": 3}, {"answer": ["x"]}],
            "3 lines with a non-string answer: {0} None, {1} 3, {2} ['x']",
        ),
        (
            "wos",
            [{"state": "관광-종류-공원"}, {"state": [1]}, {"state": None}],
            "3 lines with a state that is not a list of strings: "
            "{0} '관광-종류-공원', {1} [1], {2} None",
        ),
    ],
)
def test_bad_values_are_one_line_per_kind(
    tmp_path, generated_structured_dev, name, edits, expected
):
    data_dir, gold = generated_structured_dev
    rows = gold_lines(gold, name)
    folder = make_submission(tmp_path / "m", {name: _edit(rows, edits)})
    shown = [" turn ".join(str(row[k]) for k in ("guid", "turn") if k in row) for row in rows]
    assert check_submission(folder, data_dir).all_problems == [
        f"{name}.jsonl: " + expected.format(*shown)
    ]


def test_hugging_face_relation_ids_are_named_not_misread(tmp_path, generated_structured_dev):
    data_dir, gold = generated_structured_dev
    rows = gold_lines(gold, "re")
    hub = [{**row, "label": i % 30} for i, row in enumerate(rows)]
    (line,) = check_submission(make_submission(tmp_path / "m", {"re": hub}), data_dir).all_problems
    assert line.startswith(
        f"re.jsonl: {len(rows)} lines give hub label ids, not names: predictions for the Hugging "
        "Face klue/klue copy (data v1) are not read as v1.1 names (the Hugging Face klue/klue "
        "copy numbers them 0-29 in relation_list.json's order); write the names (first: "
        f"{rows[0]['guid']} 0, {rows[1]['guid']} 1,"
    )


def test_a_task_folder_without_check_line_is_judged_by_its_official_score(
    tmp_path, generated_structured_dev, monkeypatch
):
    """The fallback for a task folder that offers no `check_line`: the rows kept and the
    official scorer's own refusal, one line."""
    data_dir, gold = generated_structured_dev
    without = dataclasses.replace(task_module(get_task("mrc")), check_line=None)
    monkeypatch.setattr(check, "task_module", lambda task: without)
    rows = _edit(gold_lines(gold, "mrc"), [{}, {"answer": None}])
    folder = make_submission(tmp_path / "m", {"mrc": rows})
    assert check_submission(folder, data_dir).all_problems == [
        f"mrc.jsonl: {rows[1]['guid']}: answer must be a string, got None"
    ]
