"""Sweeps on a real Dask cluster on this machine's loopback: a `dask scheduler` and two
`dask worker` processes, each worker with its own book root (nothing shared with the submitting
checkout but the package and environment). The records come back through the futures and match
those of the local executor, one run at a time and two at once; a worker killed mid-sweep has its
run executed again on the other, and nothing is half-written."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import kernel_processes, wait_for

pytestmark = pytest.mark.slow
distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")  # installed with the dask extra

TASKS = "ynat,nli"
SMALL = ["--set", "train_limit=240", "--set", "dev_limit=80", "--set", "epochs=3"]
DASK = Path(sys.executable).parent / "dask"
# Same threads everywhere: CPU float sums depend on how many threads share them.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
SWEEP_TIMEOUT = 900
LOOPBACK = ("--host", "127.0.0.1", "--no-dashboard")
# One run at a time per worker; no nanny, so that killing the worker kills it for good.
WORKER_OPTIONS = ("--nthreads", "1", "--no-nanny", "--death-timeout", "60")


def _address(scheduler_file: Path) -> str | None:
    try:
        return json.loads(scheduler_file.read_text())["address"]
    except (OSError, ValueError, KeyError):  # not written yet, or half written
        return None


class Cluster:
    """A scheduler and workers on 127.0.0.1, each in its own process group, killed at the end."""

    def __init__(self, folder: Path, new_book, kluebook, workers: int = 2):
        self.folder = folder
        self.processes: dict[str, subprocess.Popen] = {}
        folder.mkdir(parents=True)
        scheduler_file = folder / "scheduler.json"
        log = open(folder / "scheduler.log", "w")  # noqa: SIM115  (closed with the process)
        self.processes["scheduler"] = subprocess.Popen(
            [DASK, "scheduler", *LOOPBACK, "--port", "0", "--scheduler-file", str(scheduler_file)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.address = wait_for(lambda: _address(scheduler_file), 60, "scheduler address")
        for index in range(1, workers + 1):
            name = f"w{index}"
            root = new_book(folder / f"{name}-root")  # the worker's own checkout of the book
            env = kluebook.environment(root, ONE_THREAD)
            log = open(folder / f"{name}.log", "w")  # noqa: SIM115
            local = ("--name", name, "--local-directory", str(folder / f"{name}-dask"))
            self.processes[name] = subprocess.Popen(
                [DASK, "worker", self.address, *LOOPBACK, *WORKER_OPTIONS, *local],
                env=env,
                cwd=root,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.client = distributed.Client(self.address, timeout=30)
        self.client.wait_for_workers(workers, timeout=120)

    def worker_running_a_run(self) -> tuple[str, str] | None:
        """A worker that is executing a run, and the key of that run, if one is."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        for address, keys in self.client.processing().items():
            for key in keys:
                if str(key).startswith("kluebook-"):
                    return workers[address]["name"], str(key)
        return None

    def running_kernel(self, name: str) -> bool:
        """Whether worker `name` has a notebook kernel running (it executes a run's cells)."""
        return bool(kernel_processes(self.processes[name].pid))

    def kill(self, name: str) -> None:
        os.killpg(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait(timeout=30)

    def close(self) -> None:
        self.client.close()
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=20)


@pytest.fixture
def cluster(tmp_path, new_book, kluebook):
    started = Cluster(tmp_path / "cluster", new_book, kluebook)
    yield started
    started.close()


def records(root: Path) -> dict[str, dict]:
    return {
        f"{path.parent.name}/{path.name}": json.loads(path.read_text())
        for path in sorted((root / "results" / "smoke").glob("*/*.json"))
    }


SAME = ("status", "fingerprint", "metrics", "best_checkpoint", "last_checkpoint", "counts")


def comparable(found: dict[str, dict]) -> dict[str, dict]:
    return {name: {key: record.get(key) for key in SAME} for name, record in found.items()}


def no_partial_files(root: Path) -> list[Path]:
    """Temporary files of an atomic write left behind (a write that did not finish)."""
    return [p for p in root.rglob("*.tmp") if ".cache" not in p.parts]


def test_a_dask_sweep_gives_the_records_of_a_local_sweep(kluebook, new_book, tmp_path, cluster):
    sweep = ["run", "--tasks", TASKS, "--seeds", "1,2", "--quiet", *SMALL]
    one_at_a_time = new_book(tmp_path / "local")
    local = kluebook(one_at_a_time, *sweep, "--threads", "1")
    assert local.returncode == 0, local.stdout[-2000:] + local.stderr[-2000:]
    two_at_once = new_book(tmp_path / "jobs")
    jobs = kluebook(two_at_once, *sweep, "--jobs", "2", "--threads", "1")
    assert jobs.returncode == 0, jobs.stdout[-2000:] + jobs.stderr[-2000:]
    submitted = new_book(tmp_path / "submitter")
    remote = kluebook(submitted, *sweep, "--executor", "dask", "--scheduler", cluster.address)
    assert remote.returncode == 0, remote.stdout[-2000:] + remote.stderr[-2000:]
    assert "4 succeeded, 0 skipped (up to date), 0 failed" in remote.stdout

    expected = comparable(records(one_at_a_time))
    assert len(expected) == 4 and all(r["status"] == "succeeded" for r in expected.values())
    assert comparable(records(two_at_once)) == expected
    assert comparable(records(submitted)) == expected
    # Every file of a run came back to the submitting checkout, where it would be locally.
    for name, record in records(submitted).items():
        assert record["host"], name
        assert (submitted / record["executed"]).is_file()  # the report renders the page
        predictions = (submitted / record["predictions"]).read_text()
        assert predictions == (one_at_a_time / record["predictions"]).read_text()
    # The workers wrote nothing into the submitting checkout's outputs, and it ran no kernel.
    assert not (submitted / ".cache" / "outputs").exists()
    # The same sweep again: every run is up to date and nothing is sent.
    again = kluebook(submitted, *sweep, "--executor", "dask", "--scheduler", cluster.address)
    assert "0 succeeded, 4 skipped (up to date), 0 failed" in again.stdout


def test_a_worker_killed_mid_sweep_has_its_run_rescheduled(kluebook, new_book, tmp_path, cluster):
    submitted = new_book(tmp_path / "submitter")
    sweep = kluebook.start(
        submitted,
        *["run", "--tasks", TASKS, "--seeds", "3,4", "--quiet", *SMALL],
        *["--executor", "dask", "--scheduler", cluster.address],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        victim, key = wait_for(cluster.worker_running_a_run, 300, "run in progress")
        # Well inside the run: its kernel is up and executing.
        wait_for(lambda: cluster.running_kernel(victim), 300, f"kernel on {victim}")
        cluster.kill(victim)
        stdout, stderr = sweep.communicate(timeout=SWEEP_TIMEOUT)
    finally:
        if sweep.poll() is None:
            sweep.kill()
    assert sweep.returncode == 0, stdout[-2000:] + stderr[-2000:]
    assert "4 succeeded, 0 skipped (up to date), 0 failed" in stdout
    found = records(submitted)
    assert len(found) == 4
    survivor = next(name for name in ("w1", "w2") if name != victim)
    for name, record in found.items():
        assert record["status"] == "succeeded", name
        assert (submitted / record["executed"]).is_file()  # the report renders the page
        assert (submitted / record["predictions"]).read_text().count("\n") > 0
    # The key is kluebook-<task>-<run name>-<8 hex digits>; the run name is the profile-stem.
    task, _, name = key.removeprefix("kluebook-").rpartition("-")[0].partition("-")
    rescheduled = found[f"{task}/{name.removeprefix('smoke-')}.json"]
    assert rescheduled["host"].endswith(f"(dask worker {survivor})")
    assert not no_partial_files(submitted)
    assert cluster.processes[survivor].poll() is None


PROMPTED = ["run", "--method", "prompted", "--tasks", TASKS, "--seeds", "1", "--quiet"]
PROMPTED_SMALL = ["--set", "dev_limit=8"]  # both shot counts of the prompted smoke matrix
SAME_PROMPTED = ("status", "fingerprint", "metrics", "intervals", "counts", "prompted")


def test_a_prompted_dask_sweep_gives_the_records_of_a_local_sweep(
    kluebook, new_book, tmp_path, cluster
):
    sweep = [*PROMPTED, *PROMPTED_SMALL]
    here = new_book(tmp_path / "local")
    local = kluebook(here, *sweep, "--threads", "1")
    assert local.returncode == 0, local.stdout[-2000:] + local.stderr[-2000:]
    submitted = new_book(tmp_path / "submitter")
    remote = kluebook(submitted, *sweep, "--executor", "dask", "--scheduler", cluster.address)
    assert remote.returncode == 0, remote.stdout[-2000:] + remote.stderr[-2000:]
    assert "4 succeeded, 0 skipped (up to date), 0 failed" in remote.stdout

    def same(found):
        return {name: {key: r.get(key) for key in SAME_PROMPTED} for name, r in found.items()}

    expected = same(records(here))
    assert len(expected) == 4 and all(r["status"] == "succeeded" for r in expected.values())
    assert all(r["prompted"]["shots"] in (0, 5) for r in expected.values())
    assert same(records(submitted)) == expected
    for name, record in records(submitted).items():
        assert "(dask worker w" in record["host"], name
        assert (submitted / record["executed"]).is_file()
        predictions = (submitted / record["predictions"]).read_bytes()
        assert predictions == (here / record["predictions"]).read_bytes(), name
