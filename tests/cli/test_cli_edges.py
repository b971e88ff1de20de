"""Edges of the real command line: bad input is one `error:` line on stderr and exit status 2,
never a traceback; `--version` prints the package version. Every case here fails (or exits)
before any notebook runs."""

import subprocess

import pytest

from kluebook import __version__
from kluebook.tasks.ynat import data as ynat
from kluebook.tasks.ynat import synthetic as synthetic_ynat


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize("command", ["run", "book"])
def test_a_seed_that_is_not_an_integer_is_named(kluebook, book_sources, command):
    result = kluebook(book_sources, command, "--seeds", "1,x")
    assert_one_line_error(result, "--seeds expects comma-separated integers, got 'x'")


def test_an_unknown_profile_lists_the_known_ones(kluebook, book_sources):
    result = kluebook(book_sources, "run", "--profile", "fast")
    assert_one_line_error(result, "unknown profile 'fast'", "smoke", "paper")


def test_a_predictions_file_that_is_not_utf8_is_named(kluebook, book_sources, tmp_path):
    gold = tmp_path / "ynat-v1.1_dev.json"
    ynat.write_official(synthetic_ynat.generate(seed=5, train_size=1, dev_size=4)["dev"], gold)
    pred = tmp_path / "preds.jsonl"
    pred.write_bytes(b"\xff\xfe{")
    result = kluebook(book_sources, "score", "ynat", "--gold", str(gold), "--pred", str(pred))
    assert_one_line_error(result, str(pred), "not UTF-8")
    assert result.stdout == ""


def test_a_gold_file_that_is_not_utf8_is_named(kluebook, book_sources, tmp_path):
    gold = tmp_path / "ynat-v1.1_dev.json"
    gold.write_bytes(b"\xff\xfe[]")
    pred = tmp_path / "preds.jsonl"
    pred.write_text("", encoding="utf-8")
    result = kluebook(book_sources, "score", "ynat", "--gold", str(gold), "--pred", str(pred))
    assert_one_line_error(result, str(gold), "not UTF-8")


def test_version(kluebook, book_sources):
    result = kluebook(book_sources, "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"kluebook {__version__}"


def test_a_sweep_shipped_with_the_package_is_found_by_name(kluebook, book_sources):
    # The matrix loads (an unknown task is the next thing checked), from any directory.
    result = kluebook(book_sources, "run", "--matrix", "learning-rate", "--tasks", "nope")
    assert_one_line_error(result, "unknown task 'nope'")
    missing = kluebook(book_sources, "run", "--matrix", "no-such-sweep")
    assert_one_line_error(missing, "cannot read the run matrix no-such-sweep")
