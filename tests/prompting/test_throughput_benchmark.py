"""The prompting throughput benchmark runs end to end on a few prompts (the server part is the
server test's), so that CI keeps it working: every figure it prints is there."""

import os
import subprocess
import sys

import pytest

from kluebook.common.paths import ROOT

pytestmark = pytest.mark.slow


def test_the_benchmark_prints_batched_and_one_at_a_time_rates(prompted_task, tmp_path):
    command = [sys.executable, str(ROOT / "benchmarks" / "prompting_throughput.py")]
    command += ["--task", prompted_task, "--items", "4", "--shots", "1", "--batch-size", "4"]
    command += ["--no-server"]
    env = {**os.environ, "KLUEBOOK_CACHE": str(tmp_path)}
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"task {prompted_task}, 4 dev prompts of 1 shots")
    for mode in ("generate", "rank"):
        rates = [line.split() for line in lines if line.split()[:1] == [mode]]
        assert [r[1:3] for r in rates[:2]] == [["batch", "4"], ["one", "at"]], rates
        assert float(rates[0][3]) > 0 and float(rates[1][5]) > 0
        assert rates[2][1:3] == ["batching", "is"]
