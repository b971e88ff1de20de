"""The GPU throughput benchmark runs end to end on a tiny shape (on CPU where there is no GPU),
so that CI exercises it: lengths, batches, every precision setting and the projection."""

import os
import subprocess
import sys

from kluebook.common.paths import ROOT


def test_the_gpu_benchmark_runs_on_a_tiny_shape():
    command = [sys.executable, str(ROOT / "benchmarks" / "gpu_throughput.py"), "--tiny"]
    command += ["--steps", "1", "--warmup", "0", "--tasks", "ynat,mrc"]
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [line.split() for line in result.stdout.splitlines()]
    measured = {(r[0], r[2], r[3]) for r in rows if len(r) > 3 and r[1] == "tiny"}
    for task in ("ynat", "mrc"):
        for setting in ("fp32", "tf32", "bf16", "all"):
            assert (task, setting) in {(t, s) for t, s, _ in measured}, (task, setting)
    assert "projected paper matrix: 4 checkpoints x 2 tasks x 3 seeds" in result.stdout
    assert result.stdout.count(" h") >= 4
