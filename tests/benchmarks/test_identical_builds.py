"""Two builds of one commit from scratch give the same records, bit for bit
(benchmarks/identical_builds.py): clones at two paths, PYTHONHASHSEED 1 and 2, `--jobs 1` and
`--jobs 2` (one thread per kernel in both: float sums depend on the thread count), on relation
extraction, one of the tasks whose stand-in vocabulary used to differ from build to build, with
small limits. The benchmark covers every task (and a Dask cluster)."""

import subprocess
import sys

import pytest

from kluebook.common.paths import CHECKOUT

pytestmark = pytest.mark.slow


@pytest.mark.skipif(CHECKOUT is None, reason="the builds are clones of a checkout")
def test_two_builds_from_scratch_give_identical_records():
    command = [sys.executable, str(CHECKOUT / "benchmarks" / "identical_builds.py")]
    command += ["--repo", str(CHECKOUT), "--tasks", "re", "--threads", "1"]
    command += ["--set", "train_limit=160", "--set", "dev_limit=48", "--set", "epochs=2"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # Both seeds of the matrix, their predictions and the stand-in model's files, all equal.
    assert "build 2 against build 1: compared 2 records" in result.stdout
    assert "2 predictions files" in result.stdout and "\n  identical\n" in result.stdout
