"""benchmarks/submission_check_memory.py: a large predictions file is checked without being
loaded whole (the check's allocations stay a small part of the file, where reading it whole,
or checking it the way a task without `check_line` is checked, holds more than the file)."""

from pathlib import Path

import pytest
from conftest import load_script

from kluebook.common.paths import CHECKOUT

SCRIPT = (CHECKOUT or Path.cwd()) / "benchmarks" / "submission_check_memory.py"


def test_a_large_file_is_checked_without_loading_it_whole(tmp_path):
    figures = load_script(SCRIPT).measure(16, tmp_path / "no-data", kept=False)  # generated dev
    assert figures.problems == [] and figures.file_bytes > 15 * 2**20
    assert figures.check_peak_bytes < figures.file_bytes / 4
    assert figures.whole_peak_bytes > figures.file_bytes


@pytest.mark.parametrize("task", ["re", "mrc", "wos"])
def test_re_mrc_and_wos_files_are_streamed_too(tmp_path, task):
    figures = load_script(SCRIPT).measure(8, tmp_path / "no-data", whole=False, task_name=task)
    assert figures.problems == [] and figures.file_bytes > 7 * 2**20
    assert figures.check_peak_bytes < figures.file_bytes / 4
    assert figures.kept_peak_bytes > figures.file_bytes  # the way they were checked before
