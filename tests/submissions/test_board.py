"""The board: each submission rescored only where an input changed (scorer calls counted),
its record written atomically and kept byte for byte while its inputs hold; the committed
records shown as they are, with the gold checksum and day they were verified against, where
the dev files are absent; a submission that fails its check refused in one line."""

import datetime
import json
import shutil

import pytest
from support.submissions import make_submission

from kluebook.submissions import derived
from kluebook.submissions.board import load_board
from kluebook.submissions.derived import read_record, record_path


@pytest.fixture
def scorer_calls(monkeypatch):
    """The (submission, task) of every call of the official scorer."""
    calls = []
    score_task = derived.score_task

    def counted(task, path, gold, limits=derived.DEFAULT_LIMITS):
        calls.append((path.parent.name, task.name))
        return score_task(task, path, gold, limits)

    monkeypatch.setattr(derived, "score_task", counted)
    return calls


@pytest.fixture
def root(tmp_path, perfect):
    """A board of two submissions: perfect YNAT and STS; every other NLI label changed."""
    folder = tmp_path / "submissions"
    make_submission(folder / "perfect", {"ynat": perfect["ynat"], "sts": perfect["sts"]})
    nli = [
        {**row, "label": "entailment" if row["label"] != "entailment" else "neutral"}
        if i % 2
        else row
        for i, row in enumerate(perfect["nli"])
    ]
    make_submission(folder / "half", {"nli": nli})
    return folder


def _bytes(root) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "_derived").iterdir())}


def test_an_unchanged_board_is_read_back_without_rescoring(root, generated_dev, scorer_calls):
    data_dir, _ = generated_dev
    first = load_board(root, data_dir)
    assert sorted(scorer_calls) == [("half", "nli"), ("perfect", "sts"), ("perfect", "ynat")]
    assert [(e.slug, e.state, e.rescored) for e in first.entries] == [
        ("half", "rescored", ("nli",)),
        ("perfect", "rescored", ("ynat", "sts")),
    ]
    assert first.written == [record_path(root / "half"), record_path(root / "perfect")]
    assert first.entries[1].record.tasks["ynat"].official == {"macro_f1": 100.0}
    written = _bytes(root)
    again = load_board(root, data_dir)
    assert len(scorer_calls) == 3 and again.written == []
    assert [e.state for e in again.entries] == ["unchanged", "unchanged"]
    assert [e.record for e in again.entries] == [e.record for e in first.entries]
    assert _bytes(root) == written


def test_only_the_changed_task_of_one_submission_is_rescored(
    root, generated_dev, scorer_calls, monkeypatch
):
    data_dir, _ = generated_dev
    load_board(root, data_dir)
    before = read_record(record_path(root / "perfect"))
    scorer_calls.clear()
    later = datetime.date(2031, 1, 2)
    monkeypatch.setattr(derived, "_today", lambda: later)
    lines = (root / "perfect" / "sts.jsonl").read_text().splitlines()
    (root / "perfect" / "sts.jsonl").write_text("\n".join(reversed(lines)) + "\n")
    board = load_board(root, data_dir)
    assert scorer_calls == [("perfect", "sts")]
    assert board.written == [record_path(root / "perfect")]
    perfect = board.entries[1]
    assert (perfect.state, perfect.rescored) == ("rescored", ("sts",))
    assert perfect.verified["sts"].on == later  # rescored: the day it was verified anew
    assert perfect.verified["ynat"].on == before.tasks["ynat"].verified_on  # kept
    assert perfect.record.tasks["ynat"] == before.tasks["ynat"]


def test_a_new_kluebook_version_rescores_every_task(root, generated_dev, scorer_calls, monkeypatch):
    data_dir, _ = generated_dev
    load_board(root, data_dir)
    scorer_calls.clear()
    monkeypatch.setattr(derived, "__version__", "9.9.9")
    board = load_board(root, data_dir)
    assert sorted(scorer_calls) == [("half", "nli"), ("perfect", "sts"), ("perfect", "ynat")]
    assert {s.kluebook_version for e in board.entries for s in e.record.tasks.values()} == {"9.9.9"}


def test_two_builds_of_one_commit_write_identical_records(
    root, generated_dev, tmp_path, monkeypatch
):
    """A clone of the board with its records, built again on another day: the same bytes."""
    data_dir, _ = generated_dev
    load_board(root, data_dir)
    clone = tmp_path / "clone" / "submissions"
    shutil.copytree(root, clone)
    monkeypatch.setattr(derived, "_today", lambda: datetime.date(2031, 1, 2))
    board = load_board(clone, data_dir)
    assert board.written == [] and {e.state for e in board.entries} == {"unchanged"}
    assert _bytes(clone) == _bytes(root)


def test_without_the_dev_files_the_committed_records_are_shown_as_they_are(
    root, generated_dev, tmp_path, scorer_calls
):
    data_dir, _ = generated_dev
    derived_board = load_board(root, data_dir)
    scorer_calls.clear()
    written = _bytes(root)
    board = load_board(root, tmp_path / "nowhere")
    assert scorer_calls == [] and board.written == [] and board.refused == []
    assert [(e.slug, e.state) for e in board.entries] == [
        ("half", "committed"),
        ("perfect", "committed"),
    ]
    ynat = derived_board.entries[1].record.tasks["ynat"]
    verified = board.entries[1].verified["ynat"]
    assert (verified.gold_sha256, verified.on) == (ynat.gold_sha256, ynat.verified_on)
    assert verified.gold_file == "ynat-v1.1/ynat-v1.1_dev.partial.json"
    assert load_board(root, None).entries == board.entries
    assert _bytes(root) == written


def test_a_committed_record_that_does_not_describe_the_files_is_refused(
    root, generated_dev, tmp_path, capsys
):
    data_dir, _ = generated_dev
    load_board(root, data_dir)
    rows = (root / "half" / "nli.jsonl").read_text().splitlines()
    (root / "half" / "nli.jsonl").write_text("\n".join(rows[1:] + rows[:1]) + "\n")
    (root / "perfect" / "submission.yaml").write_text(
        (root / "perfect" / "submission.yaml").read_text().replace("Test model", "Renamed")
    )
    board = load_board(root, tmp_path / "nowhere")
    assert board.entries == []
    assert [r.line for r in board.refused] == [
        "half: its committed record does not hold (nli.jsonl changed since) and it cannot be "
        "rescored here (no nli dev file (klue-nli-v1.1/klue-nli-v1.1_dev.json) in the data "
        "folder: run `kluebook data fetch` or set KLUEBOOK_DATA_DIR); left out of the board",
        "perfect: its committed record does not hold (submission.yaml changed since) and it "
        "cannot be rescored here (no ynat dev file (ynat-v1.1/ynat-v1.1_dev.json) in the data "
        "folder: run `kluebook data fetch` or set KLUEBOOK_DATA_DIR); left out of the board",
    ]
    warned = capsys.readouterr().err.splitlines()
    assert warned == [f"warning: submission {r.line}" for r in board.refused]


def test_a_submission_that_fails_its_check_never_enters_the_board(
    root, generated_dev, perfect, scorer_calls
):
    data_dir, _ = generated_dev
    load_board(root, data_dir)
    scorer_calls.clear()
    before = (root / "_derived" / "perfect.json").read_bytes()
    make_submission(root / "short", {"ynat": perfect["ynat"][2:]})
    make_submission(root / "perfect", {"ynat": perfect["ynat"][1:]})  # now fails its check
    (root / "README.md").write_text("The board's submissions.\n")  # not a submission
    board = load_board(root, data_dir, warn=False)
    assert [e.slug for e in board.entries] == ["half"]
    first = perfect["ynat"][0]["guid"]
    assert [r.slug for r in board.refused] == ["perfect", "short"]
    assert board.refused[0].line == (
        f"perfect: does not pass its check (1 problems; first: ynat.jsonl: 1 missing guids: "
        f"{first}): run `kluebook submissions check`; left out of the board"
    )
    assert scorer_calls == [] and board.written == []
    assert (root / "_derived" / "perfect.json").read_bytes() == before  # the good one kept
    assert not (root / "_derived" / "short.json").exists()


def test_changed_metadata_rewrites_the_record_without_rescoring(root, generated_dev, scorer_calls):
    data_dir, _ = generated_dev
    load_board(root, data_dir)
    scorer_calls.clear()
    metadata = root / "half" / "submission.yaml"
    metadata.write_text(metadata.read_text() + "contact: https://example.org/half\n")
    board = load_board(root, data_dir)
    assert scorer_calls == [] and board.written == [record_path(root / "half")]
    assert [(e.slug, e.state, e.rescored) for e in board.entries] == [
        ("half", "unchanged", ()),
        ("perfect", "unchanged", ()),
    ]
    assert board.entries[0].submission.contact == "https://example.org/half"
    assert read_record(record_path(root / "half")).metadata_sha256 == derived.file_sha256(metadata)


def test_a_bad_metadata_file_is_one_line(root, generated_dev):
    (root / "half" / "submission.yaml").write_text("model: x\n")
    board = load_board(root, generated_dev[0], warn=False)
    assert [e.slug for e in board.entries] == ["perfect"]
    (refused,) = board.refused
    assert refused.line.startswith("half: fails its check: submission.yaml: missing field")
    assert refused.line.endswith("more problems); left out of the board")


def test_a_record_is_written_as_json_with_the_day_it_was_verified(root, generated_dev):
    load_board(root, generated_dev[0])
    data = json.loads((root / "_derived" / "half.json").read_text())
    assert datetime.date.fromisoformat(data["tasks"]["nli"]["verified_on"])
