"""Visible and stoppable: while a sweep runs, each run streams its log under the book root and
`kluebook status` shows it with its last line; Ctrl-C (SIGINT to the runner) kills every kernel
the runner started, records those runs as interrupted, never over a succeeded record, and the
runner exits 130."""

import json
import signal
import subprocess

import pytest
from conftest import kernel_processes, wait_for

pytestmark = pytest.mark.slow
psutil = pytest.importorskip("psutil")  # installed with the dask extra

# Runs long enough to be seen in progress and interrupted, some 35 s each on a quiet machine: the
# interrupt reaches them 15 to 20 s after they start (a run of a fifth of this training ended
# first there, under load, and left nothing to interrupt).
SMALL = ["--set", "train_limit=1000", "--set", "dev_limit=80", "--set", "epochs=30", "--quiet"]


def test_ctrl_c_stops_the_kernels_and_records_the_runs_as_interrupted(kluebook, scratch_book):
    root = scratch_book
    first = kluebook(root, "run", "--tasks", "ynat", "--seeds", "1", *SMALL)
    assert first.returncode == 0, first.stdout + first.stderr
    [kept] = (root / "results" / "smoke" / "ynat").glob("*seed1.json")
    succeeded = kept.read_text()

    sweep = kluebook.start(
        root,
        *("run", "--tasks", "ynat", "--seeds", "1,2", "--jobs", "2", "--force", *SMALL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # Ctrl-C reaches it even where pytest was started with SIGINT ignored (`cmd &`, nohup).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    status = ("status", "--tasks", "ynat", "--seeds", "1,2", *SMALL[:-1])
    seen = {"status": ""}

    def both_runs_logged_with_their_kernels():
        shown = seen["status"] = kluebook(root, *status).stdout
        running = [line for line in shown.splitlines() if line.startswith("in progress: ")]
        logged = [line for line in running if "(nothing yet)" not in line]
        # A kernel that died while starting is started again (worker.KERNEL_STARTS): wait
        # until both runs have theirs.
        kernels = kernel_processes(sweep.pid)
        both = shown.startswith("2 run(s) in progress") and len(logged) == 2
        return (shown, kernels) if both and len(kernels) == 2 else None

    try:
        shown, kernels = wait_for(both_runs_logged_with_their_kernels, 300, "two runs in progress")
    except TimeoutError as error:
        raise AssertionError(f"{error}; last status: {seen['status']}") from None
    assert shown.startswith("2 run(s) in progress"), shown
    assert ".cache/logs/ynat/" in shown
    assert len(kernels) == 2
    sweep.send_signal(signal.SIGINT)
    stdout, stderr = sweep.communicate(timeout=120)
    assert sweep.returncode == 130, stdout + stderr
    assert "interrupted" in stderr
    _, alive = psutil.wait_procs(kernels, timeout=10)
    assert not alive, f"kernels left running: {alive}"
    assert kept.read_text() == succeeded  # never over a succeeded record
    [other] = (root / "results" / "smoke" / "ynat").glob("*seed2.failed.json")
    record = json.loads(other.read_text())
    assert record["status"] == "interrupted" and "metrics" not in record
    after = kluebook(root, *status).stdout
    assert after.startswith("0 run(s) in progress"), after
    assert "1 current" in after and "1 interrupted" in after, after
