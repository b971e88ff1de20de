"""The prompting throughput benchmark runs end to end on a few prompts (the server part is the
server test's), so that CI keeps it working: every figure it prints is there, the plain
`transformers` baseline and the ratio to it included."""

import os
import subprocess
import sys

import pytest

from kluebook.common.paths import ROOT

pytestmark = pytest.mark.slow


def test_the_benchmark_prints_batched_one_at_a_time_and_plain_rates(prompted_task, tmp_path):
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
        assert rates[0][6:9] == ["tokens/s", "(4", "requests,"]  # the backend's usage counts
        assert rates[3][1:7] == ["plain", "transformers,", "one", "at", "a", "time"]
        assert float(rates[3][7]) > 0 and float(rates[3][9].replace(",", "")) > 0
        assert rates[4][1:9] == [
            "kluebook",
            "batched",
            "is",
            rates[4][4],
            "as",
            "fast",
            "as",
            "plain",
        ]
        assert rates[4][4].endswith("x") and float(rates[4][4][:-1]) > 0
