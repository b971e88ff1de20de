"""Sweeps on a real single-node Slurm that the fixture starts here: `munged`, `slurmctld` and
`slurmd` as root with a one-node slurm.conf in a temporary folder (Debian's `slurm-wlm` and
`munge`; `.ci/run` installs them). `kluebook run --executor slurm` submits its workers as Slurm
jobs through dask-jobqueue; the records match those of the local executor, and a job cancelled
mid-sweep is submitted again without a run being lost. Skipped where Slurm is not installed."""

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from conftest import wait_for

pytestmark = pytest.mark.slow
pytest.importorskip("dask_jobqueue")

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scancel", "sinfo")
# Two tasks, one seed, small limits: the sweep stays short (CI has 90 minutes for everything),
# yet each run outlasts the resubmission of a cancelled job (about 25 s: Dask's lost-worker
# timeout, then the executor's next check). The training sets the length: once the smoke runs
# had been made faster, 480 examples for 10 epochs ended the sweep 16 s after the cancel, for 25
# epochs 24 s after it.
SWEEP = [
    "run",
    "--profile",
    "smoke",
    "--tasks",
    "ynat,nli",
    "--seeds",
    "1",
    *("--set", "train_limit=800", "--set", "dev_limit=80", "--set", "epochs=40"),
    "--quiet",
]
# The Slurm recipe of `kluebook run --help` and book/reproduce.md, sized for this one node.
SLURM = [
    *("--executor", "slurm", "--slurm-partition", "debug", "--jobs", "2", "--threads", "1"),
    *("--slurm-memory", "3GB", "--gpus-per-job", "0", "--slurm-walltime", "00:30:00"),
]
SWEEP_TIMEOUT = 900
SAME = ("status", "fingerprint", "metrics", "best_checkpoint", "last_checkpoint", "counts")


def _missing() -> list[str]:
    return [name for name in (*DAEMONS, *CLIENTS) if shutil.which(name) is None]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SingleNodeSlurm:
    """munged, slurmctld and slurmd for this machine alone, all files in `folder`."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True)
        folder.chmod(0o755)  # munged: its socket folder must be traversable
        key = folder / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
        socket_path = folder / "munge.socket"
        subprocess.run(
            [
                "munged",
                "--force",
                f"--socket={socket_path}",
                f"--key-file={key}",
                f"--pid-file={folder / 'munged.pid'}",
                f"--log-file={folder / 'munged.log'}",
                f"--seed-file={folder / 'munged.seed'}",
            ],
            check=True,
            timeout=30,
        )
        host = socket.gethostname().split(".")[0]
        memory_mb = int(Path("/proc/meminfo").read_text().split()[1]) // 1024 // 2
        for name in ("state", "spool"):
            (folder / name).mkdir()
        conf = folder / "slurm.conf"
        conf.write_text(
            "\n".join(
                [
                    "ClusterName=kluebook-test",
                    f"SlurmctldHost={host}(127.0.0.1)",
                    f"SlurmctldPort={_free_port()}",
                    f"SlurmdPort={_free_port()}",
                    "SlurmUser=root",
                    "SlurmdUser=root",
                    "AuthType=auth/munge",
                    f"AuthInfo=socket={socket_path}",
                    "CredType=cred/munge",
                    f"StateSaveLocation={folder / 'state'}",
                    f"SlurmdSpoolDir={folder / 'spool'}",
                    f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
                    f"SlurmdPidFile={folder / 'slurmd.pid'}",
                    f"SlurmctldLogFile={folder / 'slurmctld.log'}",
                    f"SlurmdLogFile={folder / 'slurmd.log'}",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/none",
                    "SchedulerType=sched/builtin",
                    "SelectType=select/cons_tres",
                    "SelectTypeParameters=CR_Core_Memory",
                    "JobAcctGatherType=jobacct_gather/none",
                    "AccountingStorageType=accounting_storage/none",
                    "MpiDefault=none",
                    "ReturnToService=2",
                    f"NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} "
                    f"RealMemory={memory_mb} State=UNKNOWN",
                    "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
                    "",
                ]
            )
        )
        self.env = {**os.environ, "SLURM_CONF": str(conf)}
        subprocess.run(["slurmctld", "-i"], env=self.env, check=True, timeout=30)
        subprocess.run(["slurmd"], env=self.env, check=True, timeout=30)
        try:
            wait_for(lambda: self.squeue_node_state() == "idle", 60, "idle Slurm node")
        except TimeoutError as error:
            raise TimeoutError(f"{error}: {self.logs()}") from None

    def squeue_node_state(self) -> str:
        found = subprocess.run(
            ["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True, timeout=30
        )
        return found.stdout.strip()

    def jobs(self) -> dict[str, str]:
        """This Slurm's jobs and their states."""
        listing = subprocess.run(
            ["squeue", "-h", "-o", "%i %T"], env=self.env, capture_output=True, text=True
        ).stdout
        return dict(line.split() for line in listing.splitlines() if line.strip())

    def logs(self) -> str:
        return " | ".join(
            f"{name}: {(self.folder / f'{name}.log').read_text()[-800:]}"
            for name in DAEMONS
            if (self.folder / f"{name}.log").exists()
        )

    def stop(self) -> None:
        for name in reversed(DAEMONS):
            pid_file = self.folder / f"{name}.pid"
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(pid_file.read_text()), signal.SIGTERM)


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    missing = _missing()
    if missing:
        pytest.skip(
            f"Slurm is not installed here ({', '.join(missing)} missing): "
            "apt-get install slurm-wlm munge"
        )
    if os.geteuid() != 0:
        pytest.skip("the single-node Slurm of this test starts its daemons as root")
    started = SingleNodeSlurm(tmp_path_factory.mktemp("slurm") / "daemons")
    yield started
    started.stop()


def comparable(root: Path, same: tuple[str, ...] = SAME) -> dict[str, dict]:
    return {
        f"{path.parent.name}/{path.name}": {
            key: json.loads(path.read_text()).get(key) for key in same
        }
        for path in sorted((root / "results" / "smoke").glob("*/*.json"))
    }


# The keeper submits a job in place of a cancelled one about 25 s after the cancel.
RESUBMIT_S = 30


def test_a_sweep_on_slurm_gives_the_records_of_the_local_executor(
    kluebook, new_book, slurm, tmp_path
):
    started = time.monotonic()
    slurm_root = new_book(tmp_path / "slurm-root")
    sweep = kluebook.start(
        slurm_root,
        *SWEEP,
        *SLURM,
        env=slurm.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    # Once both jobs run and their workers have taken a run each (its in-progress marker is in
    # the book root they share), cancel one mid-sweep: a job is submitted again in its place.
    seen: set[str] = set()
    markers = slurm_root / ".cache" / "in-progress"

    def watch() -> dict[str, str]:
        """This Slurm's jobs and their states, each job remembered in `seen`."""
        jobs = slurm.jobs()
        seen.update(jobs)
        return jobs

    def two_runs_on_two_jobs() -> list[str] | str | None:
        if sweep.poll() is not None:
            return "ended"
        running = sorted(job for job, state in watch().items() if state == "RUNNING")
        taken = len(list(markers.glob("*/*.json")))
        return running if len(running) == 2 and taken == 2 else None

    def sweep_ended() -> bool:
        watch()
        return sweep.poll() is not None

    try:
        running = wait_for(two_runs_on_two_jobs, SWEEP_TIMEOUT, "two runs on two Slurm jobs")
        assert running != "ended", f"the sweep ended before two jobs ran a run each: {seen}"
        cancelled = running[0]
        subprocess.run(["scancel", cancelled], env=slurm.env, check=True)
        cancelled_at = time.monotonic()
        wait_for(sweep_ended, SWEEP_TIMEOUT, "end of the sweep")
        stdout, stderr = sweep.communicate(timeout=60)
    finally:
        if sweep.poll() is None:
            sweep.kill()
    slurm_s = time.monotonic() - started
    assert sweep.returncode == 0, stdout + stderr + slurm.logs()
    assert "2 succeeded, 0 skipped (up to date), 0 failed" in stdout
    # The cancelled job's run executed elsewhere (2 succeeded), so the sweep outlives the
    # keeper's resubmission (about 25 s after the cancel) and a job is submitted in its place.
    outlived = time.monotonic() - cancelled_at
    assert outlived > RESUBMIT_S, f"the sweep ended {outlived:.0f} s after the cancel: too short"
    assert len(seen) >= 3, f"no job was submitted again after {cancelled} was cancelled: {seen}"
    assert not slurm.jobs(), "the sweep left Slurm jobs behind"
    assert not list(slurm_root.glob("slurm-*.out")), "Slurm logs were written into the book root"

    local_root = new_book(tmp_path / "local-root")
    local = kluebook(local_root, *SWEEP, "--threads", "1")
    assert local.returncode == 0, local.stdout + local.stderr
    found = comparable(slurm_root)
    assert sorted(name.split("/")[0] for name in found) == ["nli", "ynat"]
    assert found == comparable(local_root)
    for path in (slurm_root / "results" / "smoke").glob("*/*.json"):
        assert json.loads(path.read_text())["kernel_environment"]["OMP_NUM_THREADS"] == "1"
    print(
        f"slurm sweep {slurm_s:.0f} s (jobs seen: {len(seen)}, cancelled {cancelled}, the sweep "
        f"ended {outlived:.0f} s after); "
        f"whole test {time.monotonic() - started:.0f} s"
    )


PROMPTED = [
    *("run", "--method", "prompted", "--tasks", "ynat,nli", "--seeds", "1"),
    *("--set", "dev_limit=8", "--quiet"),
]
SAME_PROMPTED = ("status", "fingerprint", "metrics", "intervals", "counts", "prompted")


def test_a_prompted_sweep_on_slurm_gives_the_records_of_the_local_executor(
    kluebook, new_book, slurm, tmp_path
):
    slurm_root = new_book(tmp_path / "slurm-root")
    on_slurm = kluebook(slurm_root, *PROMPTED, *SLURM, env=slurm.env, timeout=SWEEP_TIMEOUT)
    assert on_slurm.returncode == 0, on_slurm.stdout + on_slurm.stderr + slurm.logs()
    assert "4 succeeded, 0 skipped (up to date), 0 failed" in on_slurm.stdout
    assert not slurm.jobs(), "the sweep left Slurm jobs behind"
    local_root = new_book(tmp_path / "local-root")
    local = kluebook(local_root, *PROMPTED, "--threads", "1")
    assert local.returncode == 0, local.stdout + local.stderr
    found = comparable(slurm_root, SAME_PROMPTED)
    assert len(found) == 4 and {r["prompted"]["shots"] for r in found.values()} == {0, 5}
    assert found == comparable(local_root, SAME_PROMPTED)
    for path in (slurm_root / "results" / "smoke").glob("*/*.json"):
        record = json.loads(path.read_text())
        predictions = record["predictions"]
        assert (slurm_root / predictions).read_bytes() == (local_root / predictions).read_bytes()
