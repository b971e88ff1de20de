"""benchmarks/submission_check_memory.py: a large predictions file is checked without being
loaded whole (the check's allocations stay a small part of the file, where reading it whole
holds more than the file)."""

from pathlib import Path

from conftest import load_script

from kluebook.common.paths import CHECKOUT

SCRIPT = (CHECKOUT or Path.cwd()) / "benchmarks" / "submission_check_memory.py"


def test_a_large_file_is_checked_without_loading_it_whole(tmp_path):
    figures = load_script(SCRIPT).measure(16, tmp_path / "no-data")  # generated dev set
    assert figures.problems == [] and figures.file_bytes > 15 * 2**20
    assert figures.check_peak_bytes < figures.file_bytes / 4
    assert figures.whole_peak_bytes > figures.file_bytes
