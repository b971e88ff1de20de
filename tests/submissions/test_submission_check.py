"""`check_submission`: the schema, the guids, the values and the Hugging Face copy's ids, each
problem one line; checked on generated dev files (under reduced-copy names) and, where
KLUEBOOK_DATA_DIR has them, on the real ones."""

import random

import pytest
from support.submissions import METADATA, make_submission, write_lines

from kluebook.common.errors import KluebookError
from kluebook.submissions.check import SHOWN, check_submission, gold_file
from kluebook.tasks import get_task, task_module


def problems(folder, data_dir):
    return check_submission(folder, data_dir).all_problems


def test_perfect_predictions_pass(tmp_path, generated_dev, perfect):
    data_dir, gold = generated_dev
    report = check_submission(make_submission(tmp_path / "perfect-model", perfect), data_dir)
    assert report.all_problems == []
    assert report.submission.parameters == 110_000_000
    assert {t.task: t.lines for t in report.tasks} == {n: len(r) for n, r in gold.items()}
    assert all(not t.gold.official and len(t.gold.sha256) == 64 for t in report.tasks)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        ("model: Test model\n", "missing field 'model'"),
        ("dev_data_used: false\n", "missing field 'dev_data_used'"),
        ("date: 2026-12-07\n", "missing field 'date'"),
    ],
)
def test_a_missing_field_is_named(tmp_path, generated_dev, perfect, edit, expected):
    folder = make_submission(tmp_path / "m", perfect, METADATA.replace(edit, ""))
    assert problems(folder, generated_dev[0]) == [f"submission.yaml: {expected}"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        ("extra: 1\n", "unknown field 'extra'"),
        ("parameters: many\n", "field 'parameters': Input should be a valid integer"),
        ("parameters: '12'\n", "field 'parameters': Input should be a valid integer"),
        ("dev_data_used: 'no'\n", "field 'dev_data_used': Input should be a valid boolean"),
        ("method: distilled\n", "field 'method': Input should be 'fine-tuned', 'prompted'"),
        ("link: javascript:alert(1)\n", "field 'link': String should match pattern"),
        ("parameters: -1\n", "field 'parameters': Input should be greater than or equal to 0"),
    ],
)
def test_a_wrong_field_is_one_line_naming_it(tmp_path, generated_dev, perfect, edit, expected):
    key = edit.split(":")[0]
    text = "".join(line + "\n" for line in METADATA.splitlines() if not line.startswith(f"{key}:"))
    folder = make_submission(tmp_path / "m", perfect, text + edit)
    found = problems(folder, generated_dev[0])
    assert len(found) == 1 and found[0].startswith(f"submission.yaml: {expected}"), found


def test_not_a_mapping_and_not_yaml(tmp_path, generated_dev, perfect):
    folder = make_submission(tmp_path / "m", perfect, "- a list\n")
    assert problems(folder, generated_dev[0]) == ["submission.yaml: expected a mapping of fields"]
    (folder / "submission.yaml").write_text("model: [unclosed\n")
    assert problems(folder, generated_dev[0])[0].startswith("submission.yaml: not valid YAML")


def test_missing_duplicate_and_unknown_guids_are_listed_five_each(tmp_path, generated_dev, perfect):
    rows = perfect["ynat"]
    edited = rows[7:] + rows[10:17] + [{"guid": f"other-{i}", "label": "정치"} for i in range(6)]
    folder = make_submission(tmp_path / "m", {"ynat": edited})
    missing, duplicate, unknown = problems(folder, generated_dev[0])
    guids = [r["guid"] for r in rows]
    assert missing == f"ynat.jsonl: 7 missing guids: {', '.join(guids[:SHOWN])} and 2 more"
    assert duplicate == f"ynat.jsonl: 7 duplicate guids: {', '.join(guids[10:15])} and 2 more"
    assert unknown.startswith("ynat.jsonl: 6 unknown guids: other-0, other-1,")
    assert unknown.endswith("other-4 and 1 more")


def test_hugging_face_label_ids_are_named_not_misread(tmp_path, generated_dev, perfect):
    hub = {
        "ynat": ("IT과학", "경제", "사회", "생활문화", "세계", "스포츠", "정치"),
        "nli": ("entailment", "neutral", "contradiction"),
    }
    predictions = {
        task: [{"guid": r["guid"], "label": hub[task].index(r["label"])} for r in perfect[task]]
        for task in hub
    }
    folder = make_submission(tmp_path / "m", predictions)
    ynat_line, nli_line = problems(folder, generated_dev[0])
    assert ynat_line.startswith(f"ynat.jsonl: {len(perfect['ynat'])} lines give hub label ids")
    assert "Hugging Face klue/klue" in ynat_line and "0-6 as IT과학, 경제" in ynat_line
    assert "0-2 as entailment, neutral, contradiction" in nli_line


def test_labels_outside_the_set(tmp_path, generated_dev, perfect):
    rows = [{**perfect["nli"][0], "label": "entails"}, *perfect["nli"][1:]]
    folder = make_submission(tmp_path / "m", {"nli": rows})
    guid = rows[0]["guid"]
    assert problems(folder, generated_dev[0]) == [
        f"nli.jsonl: 1 lines with a label outside the label set: {guid} 'entails'"
    ]


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("NaN", "not valid JSON (NaN is not a number)"),
        ("Infinity", "not valid JSON (Infinity is not a number)"),
        ("1e999", "score that is not a finite number"),
        ("5.5", "score outside 0-5"),
        ("-0.1", "score outside 0-5"),
        ('"3.2"', "score that is not a finite number"),
    ],
)
def test_sts_scores_must_be_finite_and_within_0_to_5(tmp_path, generated_dev, perfect, value, kind):
    folder = make_submission(tmp_path / "m", {"sts": perfect["sts"]})
    lines = (folder / "sts.jsonl").read_text().splitlines()
    guid = perfect["sts"][2]["guid"]
    lines[2] = f'{{"guid": "{guid}", "score": {value}}}'
    (folder / "sts.jsonl").write_text("\n".join(lines) + "\n")
    (found,) = problems(folder, generated_dev[0])
    assert kind in found and found.startswith("sts.jsonl:"), found


def test_files_that_are_no_task_are_refused(tmp_path, generated_dev, perfect):
    folder = make_submission(tmp_path / "m", {"ynat": perfect["ynat"]})
    write_lines(folder / "notes.jsonl", [])
    write_lines(folder / "ynat.jsonl.gz", [])
    found = problems(folder, generated_dev[0])
    assert found[0].startswith("notes.jsonl: not a predictions file")
    assert found[1] == "ynat.jsonl.gz: a second predictions file for ynat"


def test_a_task_without_its_dev_file_is_named(tmp_path, generated_dev, perfect):
    folder = make_submission(tmp_path / "m", {"ynat": perfect["ynat"]})
    (found,) = problems(folder, tmp_path / "empty")
    assert found.startswith("ynat.jsonl: no ynat dev file (ynat-v1.1/ynat-v1.1_dev.json)")


def test_a_file_named_as_official_must_match_its_pins(tmp_path, generated_dev, perfect):
    data_dir, _ = generated_dev
    copy = tmp_path / "data" / "klue-sts-v1.1" / "klue-sts-v1.1_dev.json"
    copy.parent.mkdir(parents=True)
    copy.write_bytes((data_dir / "klue-sts-v1.1" / "klue-sts-v1.1_dev.partial.json").read_bytes())
    folder = make_submission(tmp_path / "m", {"sts": perfect["sts"]})
    (found,) = problems(folder, tmp_path / "data")
    assert "klue-sts-v1.1/klue-sts-v1.1_dev.json in the data folder is not the official" in found


# --- The real dev files ---------------------------------------------------------------------

REAL_TASKS = ("ynat", "nli", "sts", "ner", "dp")


@pytest.fixture(scope="module")
def real_gold(klue_file):
    klue_file("klue-sts-v1.1/klue-sts-v1.1_dev.json")  # skips with a reason when absent
    from kluebook.common.paths import KLUE_DATA

    gold = {}
    for name in REAL_TASKS:
        try:
            found = gold_file(get_task(name), KLUE_DATA)
        except KluebookError as error:
            pytest.skip(f"real {name} dev file unusable: {error}")
        gold[name] = task_module(get_task(name)).read_official(found.path)
    return KLUE_DATA, gold


def noisy(task: str, rows: list[dict], rng: random.Random) -> list[dict]:
    """Predictions with about a tenth of the values changed, within the valid ranges."""
    from kluebook.tasks.dp.metric import DEPRELS
    from kluebook.tasks.ner.metric import TAGS
    from kluebook.tasks.nli.data import LABELS as NLI
    from kluebook.tasks.ynat.data import LABELS as YNAT

    out = []
    for row in rows:
        row = dict(row)
        if rng.random() < 0.1:
            if task in ("ynat", "nli"):
                row["label"] = rng.choice(YNAT if task == "ynat" else NLI)
            elif task == "sts":
                row["score"] = round(rng.uniform(0, 5), 3)
            elif task == "ner":
                row["tags"] = [rng.choice(TAGS) for _ in row["tags"]]
            else:
                size = len(row["heads"])
                row["heads"] = [rng.randint(0, size) for _ in range(size)]
                row["deprels"] = [rng.choice(DEPRELS) for _ in range(size)]
        out.append(row)
    return out


@pytest.mark.realdata
def test_perfect_and_noisy_predictions_of_every_real_task_pass(tmp_path, real_gold):
    data_dir, gold = real_gold
    perfect = {n: task_module(get_task(n)).gold_predictions(r, {}) for n, r in gold.items()}
    rng = random.Random(0)
    for slug, predictions in (
        ("perfect", perfect),
        ("noisy", {n: noisy(n, rows, rng) for n, rows in perfect.items()}),
    ):
        report = check_submission(make_submission(tmp_path / slug, predictions), data_dir)
        assert report.all_problems == [], slug
        assert [t.task for t in report.tasks] == ["ynat", "sts", "nli", "ner", "dp"]


@pytest.mark.realdata
def test_real_ner_and_dp_values_are_checked(tmp_path, real_gold):
    data_dir, gold = real_gold
    ner = task_module(get_task("ner")).gold_predictions(gold["ner"], {})
    dp = task_module(get_task("dp")).gold_predictions(gold["dp"], {})
    first_ner, first_dp = ner[0]["guid"], dp[0]["guid"]
    size = len(dp[0]["heads"])
    ner[0] = {**ner[0], "tags": ner[0]["tags"][:-1]}
    dp[0] = {**dp[0], "heads": [size + 1, *dp[0]["heads"][1:]]}
    hub_tags = [{"guid": r["guid"], "tags": [12] * len(r["tags"])} for r in ner[1:]]
    folder = make_submission(tmp_path / "m", {"ner": [ner[0], *hub_tags], "dp": dp})
    wrong_length, hub_ids, head = problems(folder, data_dir)
    assert wrong_length.startswith("ner.jsonl: 1 lines with a tags list of the wrong length")
    assert first_ner in wrong_length
    assert hub_ids.startswith(f"ner.jsonl: {len(ner) - 1} lines give hub tag ids")
    assert head == (
        "dp.jsonl: 1 lines with a head outside the sentence (0 for the root, else an eojeol's "
        f"index): {first_dp} {size + 1}"
    )


@pytest.mark.realdata
def test_hub_position_guids_of_ner_and_dp_are_named(tmp_path, real_gold):
    data_dir, gold = real_gold
    rows = task_module(get_task("dp")).gold_predictions(gold["dp"], {})
    hub = [{**row, "guid": f"dp-hub-{i:05d}"} for i, row in enumerate(rows)]
    (hub_line, missing) = problems(make_submission(tmp_path / "m", {"dp": hub}), data_dir)
    assert hub_line.startswith(
        f"dp.jsonl: {len(rows)} guids are positions in the Hugging Face klue/klue copy split"
    )
    assert "dp-hub-00000, dp-hub-00001" in hub_line
    assert missing.startswith(f"dp.jsonl: {len(rows)} missing guids: {rows[0]['guid']}")


@pytest.mark.realdata
def test_the_real_files_are_identified_by_their_pinned_sha256(real_gold):
    data_dir, _ = real_gold
    found = gold_file(get_task("nli"), data_dir)
    assert found.official
    assert found.sha256.startswith("0699db82be17766b")


@pytest.mark.realdata
@pytest.mark.parametrize("slug", ["majority-baseline", "tfidf-baseline", "next-eojeol-baseline"])
def test_the_committed_baselines_records_are_derived_anew_and_equal(real_gold, slug):
    """The shipped records hold what the predictions give under today's metric code and errata:
    a change of either (an errata version bump) fails here until they are rescored."""
    from kluebook.common.paths import CHECKOUT
    from kluebook.submissions.derived import verify

    if CHECKOUT is None:
        pytest.skip("the committed submissions are in a checkout, not in the installed package")
    data_dir, _ = real_gold
    assert verify(CHECKOUT / "submissions" / slug, data_dir) == ([], [])
