"""The executors of other machines: a Dask cluster, or Dask workers that run as Slurm jobs.

- `DaskExecutor(scheduler)`: every run is sent to a Dask cluster (`dask.distributed`, an optional
  dependency imported only here); its files come back through the futures. Runs of real
  checkpoints ask for the worker resource `GPU=1`, so that a worker started with
  `--resources GPU=1` never executes two at once.
- `SlurmExecutor(...)`: the same, on Dask workers that `dask_jobqueue.SLURMCluster` starts as
  Slurm jobs: one worker process per job, one run at a time per job (the worker resource
  `run=1`), the job's cores as the run's threads and, with `gpus=1`, the job's GPU.
"""

import subprocess
import sys
import threading
import time
import uuid

from kluebook.common.errors import KluebookError
from kluebook.common.paths import CACHE
from kluebook.running.executors import STAND_INS, Executor
from kluebook.running.worker import Interrupted, RunProducts, RunRequest, produce


def parse_resources(text: str | None) -> dict[str, float]:
    """`GPU=1,MEM=2` as a Dask resources mapping; "" is none."""
    resources = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, sep, amount = item.partition("=")
        try:
            resources[name.strip()] = float(amount)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise KluebookError(f"--resources expects NAME=AMOUNT[,NAME=AMOUNT], got {item!r}")
    return resources


class DaskExecutor(Executor):
    """Every run goes to the Dask cluster at `scheduler` (tcp://HOST:PORT).

    `resources`: what each run asks of a worker; None: `GPU=1` for runs of real checkpoints and
    nothing for the tiny stand-in. Before any run starts, `check` waits up to `patience` seconds
    for a worker that offers what the runs ask, saying so every `report_every` seconds, and
    fails in one line after that. A worker that dies mid-run has its run rescheduled on another
    worker by the scheduler (up to its `allowed-failures`, default 3); a run whose notebook fails
    is not retried, it is recorded as failed.
    """

    def __init__(
        self,
        scheduler: str,
        resources: dict[str, float] | None = None,
        connect_timeout: float = 30.0,
        patience: float = 120.0,
        report_every: float = 30.0,
    ):
        self.scheduler = scheduler
        self.resources = resources
        self.patience = patience
        self.report_every = report_every
        self.description = f"dask {scheduler}"
        self.client = self.connect(scheduler, connect_timeout)
        self.futures: set = set()
        # Threads only wait on futures: as many as there are runs, the scheduler queues them.
        self.concurrency = 1024

    @staticmethod
    def connect(scheduler, timeout: float):
        """A client of the scheduler at an address, or of a `distributed` cluster object."""
        try:
            from distributed import Client  # optional: the dask extra
        except ImportError:
            raise KluebookError(
                "--executor dask and slurm need the optional Dask dependencies: "
                "pip install -e '.[dask]'"
            ) from None
        try:
            return Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise KluebookError(
                f"cannot reach the Dask scheduler {scheduler}: {type(error).__name__}"
            ) from error

    def needs(self, model: str) -> dict[str, float]:
        if self.resources is not None:
            return self.resources
        return {} if model in STAND_INS else {"GPU": 1}

    def check(self, models: set[str]) -> None:
        for needs in {tuple(sorted(self.needs(model).items())) for model in models}:
            self.wait_for_worker(dict(needs))

    def offers(self, needs: dict[str, float]) -> bool:
        workers = self.client.scheduler_info(n_workers=-1)["workers"].values()
        return any(
            all(w.get("resources", {}).get(k, 0) >= v for k, v in needs.items()) for w in workers
        )

    def waiting(self) -> str:
        """What the cluster is doing while no worker is there yet, for the waiting message."""
        workers = self.client.scheduler_info(n_workers=-1)["workers"].values()
        offered = sorted({str(w.get("resources") or {}) for w in workers}) or ["no worker"]
        return f"workers offer: {', '.join(offered)}"

    def wait_for_worker(self, needs: dict[str, float]) -> None:
        """Wait up to `patience` for a worker that has `needs`, saying what it waits for;
        fail with a one-line error after that (no run has started)."""
        started = time.monotonic()
        reported = started
        while not self.offers(needs):
            waited = time.monotonic() - started
            if waited > self.patience:
                raise KluebookError(
                    f"no worker of {self.description} offers {needs or 'a slot'} after "
                    f"{self.patience:.0f} s ({self.waiting()}); {self.hint}"
                )
            if time.monotonic() - reported >= self.report_every:
                reported = time.monotonic()
                print(
                    f"waiting for a worker that offers {needs or 'a slot'}: {waited:.0f} s of "
                    f"{self.patience:.0f} s ({self.waiting()})",
                    file=sys.stderr,
                    flush=True,
                )
            time.sleep(1)

    hint = "start workers with e.g. `dask worker SCHEDULER --resources GPU=1`, or raise --patience"

    def produce(self, request: RunRequest) -> RunProducts:
        needs = self.needs(request.parameters["model"])
        future = self.client.submit(
            produce,
            request,
            key=f"kluebook-{request.task}-{request.name}-{uuid.uuid4().hex[:8]}",
            pure=False,
            resources=needs or None,
        )
        self.futures.add(future)
        try:
            return future.result()
        except Exception as error:
            if future.cancelled():
                raise Interrupted(request.name) from error
            raise
        finally:
            self.futures.discard(future)

    def cancel(self) -> None:
        self.client.cancel(list(self.futures))

    def close(self) -> None:
        self.client.close()


class SlurmExecutor(DaskExecutor):
    """Every run on a Dask worker that `dask_jobqueue.SLURMCluster` submits as a Slurm job.

    `jobs` jobs at once, each one worker process (`processes=1`) with `cores` threads and
    `memory`, in `partition`, for at most `walltime`; `gpus` (0 or 1) asks Slurm for a GPU per
    job (`--gres=gpu:1`) and advertises it as the worker resource `GPU=1`. Each worker also
    offers `run=1` and every run asks for it, so a job executes one run at a time, with the
    job's cores as its threads. Options not given here come from dask-jobqueue's own config
    (`jobqueue.slurm` in ~/.config/dask/jobqueue.yaml, or DASK_JOBQUEUE__SLURM__* variables).
    A job that dies (killed, pre-empted, out of walltime) is submitted again, and the scheduler
    executes its run on another worker.
    """

    hint = "see `squeue` for why the jobs wait, or raise --patience"

    def __init__(
        self,
        jobs: int = 1,
        cores: int = 4,
        memory: str = "16GB",
        gpus: int = 1,
        partition: str | None = None,
        walltime: str | None = None,
        patience: float = 3600.0,
        report_every: float = 30.0,
        extra_directives: list[str] = (),
    ):
        try:
            from dask_jobqueue import SLURMCluster  # optional: the dask extra
        except ImportError:
            raise KluebookError(
                "--executor slurm needs the optional Dask dependencies: pip install -e '.[dask]'"
            ) from None
        if jobs < 1 or cores < 1:
            raise KluebookError(f"--jobs and --threads must be at least 1, got {jobs}, {cores}")
        if gpus not in (0, 1):
            raise KluebookError(f"--gpus-per-job is 0 or 1 (a run uses one GPU), got {gpus}")
        resources = "run=1" + (",GPU=1" if gpus else "")
        directives = [*(["--gres=gpu:1"] if gpus else []), *extra_directives]
        try:
            self.cluster = SLURMCluster(
                queue=partition,
                cores=cores,
                processes=1,
                memory=memory,
                walltime=walltime,
                job_extra_directives=directives,
                worker_extra_args=["--resources", resources],
                job_name="kluebook",
                log_directory=str(CACHE / "slurm"),  # the jobs' logs, out of the book root
            )
        except (ValueError, OSError) as error:
            raise KluebookError(f"cannot set up the Slurm cluster: {error}") from error
        self.jobs, self.gpus = jobs, gpus
        super().__init__(self.cluster, patience=patience, report_every=report_every)
        self.description = f"slurm, {jobs} job(s) of {cores} core(s)" + (
            f", {memory}, 1 GPU" if gpus else f", {memory}"
        )
        self.cluster.scale(jobs=jobs)
        self.stopped = threading.Event()
        self.keeper = threading.Thread(target=self.keep_jobs, daemon=True)
        self.keeper.start()

    def needs(self, model: str) -> dict[str, float]:
        return {"run": 1, **({"GPU": 1} if self.gpus and model not in STAND_INS else {})}

    def keep_jobs(self, every: float = 10.0) -> None:
        """Submit a job again for every job that ended (the cluster keeps `jobs` of them)."""
        while not self.stopped.wait(every):
            try:
                self.cluster.scale(jobs=self.jobs)
            except Exception:  # the cluster is closing
                return

    def job_states(self) -> dict[str, str]:
        """The Slurm state of each of this cluster's jobs (PENDING, RUNNING...), from squeue."""
        ids = [job.job_id for job in self.cluster.workers.values() if job.job_id]
        if not ids:
            return {}
        try:
            listing = subprocess.run(
                ["squeue", "-h", "-o", "%i %T %r", "-j", ",".join(ids)],
                capture_output=True,
                text=True,
                timeout=20,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return {}
        return {
            job: " ".join(rest) for job, *rest in (line.split() for line in listing.splitlines())
        }

    def waiting(self) -> str:
        states = self.job_states()
        if not states:
            return "no job in the queue yet"
        listed = ", ".join(f"job {job} {state}" for job, state in sorted(states.items()))
        return f"Slurm: {listed}"

    def close(self) -> None:
        self.stopped.set()
        super().close()
        self.cluster.close()
