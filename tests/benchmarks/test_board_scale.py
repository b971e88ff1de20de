"""benchmarks/board_scale.py at a tiny size (3 submissions x 2 tasks on generated dev files):
every step runs, and the board rescores every submission from scratch, the added one only after
adding one, and none when nothing changed."""

import re
import subprocess
import sys
from pathlib import Path

from kluebook.common.paths import CHECKOUT

SCRIPT = (CHECKOUT or Path.cwd()) / "benchmarks" / "board_scale.py"
STEP = r"\s+\d+\.\d\d s  cpu\s+\d+\.\d\d s  peak\s+\d+\.\d MiB"


def test_the_board_benchmark_rescores_only_the_added_submission(tmp_path):
    args = ["--submissions", "3", "--tasks", "ynat,sts", "--generated", "--dev-size", "30"]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("board: 3 submissions x 2 tasks, generated dev files (ynat 30")
    labels = [re.match(r"(.+?)" + STEP, line).group(1).strip() for line in lines[1:-1]]
    assert labels == [
        "idle (imports only)",
        "check, from scratch",
        "score, from scratch",
        "render, from scratch",
        "check, one added",
        "score, one added",
        "render, one added",
        "score, unchanged",
        "render, unchanged",
    ]
    assert "(checked 3, problems 0)" in lines[2]
    assert "(entries 3, rescored 3, tasks_rescored 6, refused 0)" in lines[3]
    assert "(entries 4, rescored 1, tasks_rescored 2, refused 0)" in lines[6]
    # Each render names the largest pages it wrote, with their sizes.
    assert re.search(r"\(pages \d+, largest (\S+ \d+\.\d\d MB, ){2}\S+ \d+\.\d\d MB\)$", lines[4])
    assert lines[-1] == "rescored: 3 from scratch, 1 after adding one, 0 unchanged"
