"""The derived record of a submission: rescored by the official code, kept while its inputs'
checksums hold, validated on read, and verified cell by cell."""

import json
import shutil

import pytest
from support.submissions import make_submission

from kluebook.common.errors import KluebookError
from kluebook.scoring.predictions import score_predictions
from kluebook.submissions.derived import (
    derive,
    differences,
    read_record,
    record_path,
    verify,
    write_record,
)
from kluebook.tasks import get_task


@pytest.fixture
def noisy(tmp_path, generated_dev, perfect):
    """A submission with every fourth YNAT label and every STS score changed."""
    ynat = [
        {**row, "label": "정치" if row["label"] != "정치" else "경제"} if i % 4 == 0 else row
        for i, row in enumerate(perfect["ynat"])
    ]
    sts = [{**row, "score": round(abs(row["score"] - 1.3), 3)} for row in perfect["sts"]]
    return make_submission(tmp_path / "submissions" / "noisy", {"ynat": ynat, "sts": sts})


def test_the_record_holds_the_official_numbers_and_every_checksum(noisy, generated_dev):
    data_dir, gold = generated_dev
    record, rescored = derive(noisy, data_dir)
    assert rescored == ["ynat", "sts"]
    rows = [json.loads(line) for line in (noisy / "ynat.jsonl").read_text().splitlines()]
    official = score_predictions(get_task("ynat"), gold["ynat"], rows)
    ynat = record.tasks["ynat"]
    assert ynat.official == official and 0 < official["macro_f1"] < 100
    assert ynat.intervals["macro_f1"].low <= official["macro_f1"] <= ynat.intervals["macro_f1"].high
    assert ynat.bootstrap == {"resamples": 1000, "seed": 22, "unit": "headline"}
    assert len(ynat.predictions_sha256) == len(ynat.gold_sha256) == 64
    assert ynat.gold_file == "ynat-v1.1/ynat-v1.1_dev.partial.json" and not ynat.gold_official


def test_only_a_task_whose_input_changed_is_rescored(noisy, generated_dev):
    data_dir, _ = generated_dev
    first, _ = derive(noisy, data_dir)
    again, rescored = derive(noisy, data_dir, first)
    assert rescored == [] and again == first
    lines = (noisy / "sts.jsonl").read_text().splitlines()
    (noisy / "sts.jsonl").write_text("\n".join(reversed(lines)) + "\n")  # same numbers
    changed, rescored = derive(noisy, data_dir, first)
    assert rescored == ["sts"]
    assert changed.tasks["ynat"] is first.tasks["ynat"]
    assert changed.tasks["sts"].official == first.tasks["sts"].official
    assert changed.tasks["sts"].predictions_sha256 != first.tasks["sts"].predictions_sha256


def test_a_submission_that_fails_its_check_is_not_scored(tmp_path, generated_dev, perfect):
    folder = make_submission(tmp_path / "m", {"ynat": perfect["ynat"][1:]})
    with pytest.raises(KluebookError, match=r"does not pass its check .* missing guids"):
        derive(folder, generated_dev[0])


def test_verify_names_the_tampered_cell(noisy, generated_dev):
    data_dir, _ = generated_dev
    record, _ = derive(noisy, data_dir)
    path = record_path(noisy)
    write_record(path, record)
    assert path == noisy.parent / "_derived" / "noisy.json"
    assert verify(noisy, data_dir) == ([], [])
    data = json.loads(path.read_text())
    true = data["tasks"]["sts"]["official"]["pearsonr"]
    data["tasks"]["sts"]["official"]["pearsonr"] = true + 0.01
    data["tasks"]["ynat"]["gold_sha256"] = "0" * 64
    path.write_text(json.dumps(data))
    assert verify(noisy, data_dir).differences == [
        f"noisy.tasks.sts.official.pearsonr: recorded {true + 0.01!r}, derived {true!r}",
        f"noisy.tasks.ynat.gold_sha256: recorded {'0' * 64!r}, "
        f"derived {record.tasks['ynat'].gold_sha256!r}",
    ]


def test_a_record_is_validated_on_read(noisy, generated_dev, tmp_path):
    record, _ = derive(noisy, generated_dev[0])
    data = record.model_dump(mode="json")
    data["tasks"]["ynat"]["official"]["macro_f1"] = "81.4"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(KluebookError, match=r"^bad.json: not a derived record \(tasks.ynat"):
        read_record(path)


def test_a_missing_task_in_a_record_is_named(noisy, generated_dev):
    record, _ = derive(noisy, generated_dev[0])
    fewer = record.model_copy(update={"tasks": {"ynat": record.tasks["ynat"]}})
    assert differences(fewer, record) == ["noisy.tasks.sts: derived, missing from the record"]


def test_two_derivations_from_scratch_write_the_same_bytes(noisy, generated_dev, tmp_path):
    first, _ = derive(noisy, generated_dev[0])
    second, _ = derive(noisy, generated_dev[0])
    write_record(tmp_path / "a.json", first)
    write_record(tmp_path / "b.json", second)
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert str(tmp_path) not in (tmp_path / "a.json").read_text()  # no path of this machine


def test_a_record_of_a_reduced_copy_verifies_on_its_numbers_against_the_official_file(
    noisy, generated_dev, tmp_path, monkeypatch
):
    """Derived against the reduced YNAT copy; the official file (here the same records, taken
    for the pinned one) then in the data folder: the numbers are compared, the gold named by
    the record is said to be the copy's, and a changed number still fails."""
    from kluebook.submissions import check

    data_dir = tmp_path / "data"
    shutil.copytree(generated_dev[0], data_dir)
    record, _ = derive(noisy, data_dir)
    write_record(record_path(noisy), record)
    reduced = data_dir / "ynat-v1.1" / "ynat-v1.1_dev.partial.json"
    shutil.copy(reduced, data_dir / "ynat-v1.1" / "ynat-v1.1_dev.json")
    monkeypatch.setattr(check, "mismatch", lambda path, pins: None)  # taken for the official
    differing, notes = verify(noisy, data_dir)
    assert differing == []
    assert notes == [
        "noisy.tasks.ynat: derived against a reduced copy of the dev file "
        f"(ynat-v1.1/ynat-v1.1_dev.partial.json, SHA-256 {record.tasks['ynat'].gold_sha256[:16]}…);"
        " every number equal from the official file here (ynat-v1.1/ynat-v1.1_dev.json, "
        f"SHA-256 {check.file_sha256(data_dir / 'ynat-v1.1' / 'ynat-v1.1_dev.json')[:16]}…)"
    ]
    data = json.loads(record_path(noisy).read_text())
    data["tasks"]["ynat"]["official"]["macro_f1"] += 1.0
    record_path(noisy).write_text(json.dumps(data))
    differing, notes = verify(noisy, data_dir)
    assert [line.split(":")[0] for line in differing] == [
        "noisy.tasks.ynat.official.macro_f1"
    ] and notes == []
