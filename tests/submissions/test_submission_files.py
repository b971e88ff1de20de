"""Submission files as untrusted input: size limits, gzip bombs, links, paths outside the
folder and slugs are refused in one line; JSON Lines are read one line at a time."""

import gzip
import os

import pytest
from support.submissions import make_submission

from kluebook.common.errors import KluebookError
from kluebook.submissions.check import check_submission
from kluebook.submissions.files import Limits, prediction_lines


def test_a_file_over_the_size_limit_is_refused(tmp_path, generated_dev, perfect):
    folder = make_submission(tmp_path / "m", {"ynat": perfect["ynat"]})
    size = (folder / "ynat.jsonl").stat().st_size
    report = check_submission(folder, generated_dev[0], Limits(file_bytes=size - 1))
    assert report.all_problems == [f"ynat.jsonl: {size} bytes, over the limit of {size - 1}"]


def test_a_gzip_bomb_stops_at_the_decompressed_cap(tmp_path):
    path = tmp_path / "ynat.jsonl.gz"
    with gzip.open(path, "wb") as handle:  # 64 MiB of blank lines, about 64 KiB compressed
        for _ in range(64):
            handle.write(b"\n" * 2**20)
    assert path.stat().st_size < 2**20
    limits = Limits(decompressed_bytes=2**20)
    with pytest.raises(KluebookError, match=r"^ynat.jsonl.gz: more than 1048576 bytes once"):
        list(prediction_lines(path, limits))


def test_gzip_predictions_are_read(tmp_path, generated_dev, perfect):
    folder = make_submission(tmp_path / "m", {})
    with gzip.open(folder / "sts.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.writelines(
            f'{{"guid": "{r["guid"]}", "score": {r["score"]}}}\n' for r in perfect["sts"]
        )
    report = check_submission(folder, generated_dev[0])
    assert report.all_problems == [] and report.tasks[0].lines == len(perfect["sts"])


def test_a_damaged_gzip_file_is_one_line(tmp_path):
    path = tmp_path / "sts.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"guid": 1}\n' * 100)[:-20])
    with pytest.raises(KluebookError, match=r"^sts.jsonl.gz: cannot read \(EOFError\)"):
        list(prediction_lines(path))


def test_a_long_line_is_refused_without_reading_it_whole(tmp_path):
    path = tmp_path / "ner.jsonl"
    path.write_text('{"guid": "' + "x" * 5000 + '"}\n')
    with pytest.raises(KluebookError, match="a line longer than 1000 bytes"):
        list(prediction_lines(path, Limits(line_bytes=1000)))


def test_lines_are_streamed(tmp_path):
    path = tmp_path / "ynat.jsonl"
    path.write_text('{"guid": "a"}\n\nnot json\n')
    lines = prediction_lines(path)
    assert next(lines) == (1, {"guid": "a"})  # read before the bad line is reached
    with pytest.raises(KluebookError, match=r"^ynat.jsonl:3: not valid JSON"):
        next(lines)


def test_a_symbolic_link_is_refused(tmp_path, generated_dev, perfect):
    folder = make_submission(tmp_path / "m", {})
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    os.symlink(outside, folder / "ynat.jsonl")
    os.symlink("../outside.jsonl", folder / "nli.jsonl")
    found = check_submission(folder, generated_dev[0]).all_problems
    assert "nli.jsonl: a symbolic link (only plain files are read)" in found
    assert "ynat.jsonl: a symbolic link (only plain files are read)" in found


def test_a_linked_submission_folder_and_a_sub_folder_are_refused(tmp_path, generated_dev, perfect):
    folder = make_submission(tmp_path / "m", {"ynat": perfect["ynat"]})
    (folder / "extra").mkdir()
    os.symlink(folder, tmp_path / "linked")
    assert check_submission(folder, generated_dev[0]).all_problems == [
        "extra: a folder inside the submission (only files are read)"
    ]
    assert check_submission(tmp_path / "linked", generated_dev[0]).all_problems == [
        "linked: the submission folder is a symbolic link"
    ]


@pytest.mark.parametrize("slug", ["Big-Model", "-x", "a b", "x" * 65, "모델", "a.b"])
def test_a_slug_of_other_characters_is_refused(tmp_path, generated_dev, perfect, slug):
    folder = make_submission(tmp_path / slug, {"ynat": perfect["ynat"]})
    (found,) = check_submission(folder, generated_dev[0]).all_problems
    assert found.startswith(f"{slug!r}: a submission folder's name (its slug) must be")


def test_a_metadata_file_over_its_limit_is_refused(tmp_path, generated_dev, perfect):
    folder = make_submission(tmp_path / "m", {"ynat": perfect["ynat"]})
    (folder / "submission.yaml").write_text("model: " + "x" * 70_000 + "\n")
    assert check_submission(folder, generated_dev[0]).all_problems == [
        "submission.yaml: larger than 65536 bytes"
    ]
