"""Where the runs of a sweep execute: here, one or several at once, or on a Dask cluster.

- `LocalExecutor(jobs=1)`: today's default, one run after another in this machine's kernels.
- `LocalExecutor(jobs=N)`: N runs at once on this machine; the CPU threads are split between them
  (OMP_NUM_THREADS / MKL_NUM_THREADS in each kernel's environment, which torch follows) and, on a
  machine with GPUs, each run gets its own GPU (CUDA_VISIBLE_DEVICES).
- `DaskExecutor(scheduler)`: every run is sent to a Dask cluster (`dask.distributed`, an optional
  dependency imported only here); its files come back through the futures. Runs of real
  checkpoints ask for the worker resource `GPU=1`, so that a worker started with
  `--resources GPU=1` never executes two at once.

An executor's `produce(request)` blocks until the run's products are back; the runner calls it
from as many threads as `concurrency`.
"""

import os
import queue
import shutil
import subprocess
import time
import uuid
from dataclasses import replace

from kluebook.errors import KluebookError
from kluebook.worker import (
    Interrupted,
    RunProducts,
    RunRequest,
    available_cpus,
    produce,
    thread_environment,
)


class Executor:
    """Runs requests; `concurrency` is how many the runner hands it at once."""

    concurrency = 1
    description = "local"

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def check(self, models: set[str]) -> None:
        """Refuse, before any run starts, a sweep of these models that cannot run here."""

    def produce(self, request: RunRequest) -> RunProducts:
        raise NotImplementedError

    def cancel(self) -> None:
        """Stop what can be stopped (the sweep was interrupted)."""

    def close(self) -> None:
        pass


def visible_gpus() -> list[str]:
    """This machine's GPUs, as CUDA_VISIBLE_DEVICES entries: the variable's own list when it is
    set, else what `nvidia-smi -L` lists. Found without importing torch."""
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        return [d.strip() for d in os.environ["CUDA_VISIBLE_DEVICES"].split(",") if d.strip()]
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        listing = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [str(i) for i, line in enumerate(listing.splitlines()) if line.startswith("GPU ")]


class LocalExecutor(Executor):
    """`jobs` runs at once on this machine, each in its own kernel with its share of the CPU
    threads (`threads` each; default: the cores divided by `jobs`) and, if there are GPUs, its
    own GPU. With one job, no `threads` and at most one GPU, kernels inherit this process's
    environment as is."""

    def __init__(self, jobs: int = 1, threads: int | None = None, gpus: list[str] | None = None):
        if jobs < 1:
            raise KluebookError(f"--jobs must be at least 1, got {jobs}")
        if threads is not None and threads < 1:
            raise KluebookError(f"--threads must be at least 1, got {threads}")
        self.gpus = visible_gpus() if gpus is None else gpus
        self.concurrency = jobs
        self.description = f"{jobs} at once" if jobs > 1 else "local"
        if threads is None and jobs > 1:
            threads = max(1, available_cpus() // jobs)
        self.slots: queue.Queue[dict] = queue.Queue()
        for index in range(jobs):
            env = thread_environment(threads) if threads else {}
            # One GPU per run, also for one job at a time (else the Trainer would spread a run
            # over every GPU with DataParallel); more jobs than GPUs: tiny-model runs only.
            if self.gpus and (jobs > 1 or len(self.gpus) > 1):
                env["CUDA_VISIBLE_DEVICES"] = self.gpus[index % len(self.gpus)]
            self.slots.put(env)

    def check(self, models: set[str]) -> None:
        from kluebook.tiny_model import TINY_MODEL

        if self.gpus and self.concurrency > len(self.gpus) and models - {TINY_MODEL}:
            raise KluebookError(
                f"--jobs {self.concurrency} on a machine with {len(self.gpus)} GPU(s): each run of "
                f"a real checkpoint needs its own GPU; use --jobs {len(self.gpus)} or fewer"
            )

    def produce(self, request: RunRequest) -> RunProducts:
        env = self.slots.get()
        try:
            return produce(replace(request, kernel_env=env))
        finally:
            self.slots.put(env)


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
    nothing for the tiny stand-in. A worker that dies mid-run has its run rescheduled on another
    worker by the scheduler (up to its `allowed-failures`, default 3); a run whose notebook fails
    is not retried, it is recorded as failed.
    """

    def __init__(
        self,
        scheduler: str,
        resources: dict[str, float] | None = None,
        connect_timeout: float = 30.0,
        worker_timeout: float = 120.0,
    ):
        try:
            from distributed import Client
        except ImportError:
            raise KluebookError(
                "--executor dask needs the optional Dask dependencies: pip install -e '.[dask]'"
            ) from None
        self.scheduler = scheduler
        self.resources = resources
        self.worker_timeout = worker_timeout
        self.description = f"dask {scheduler}"
        try:
            self.client = Client(scheduler, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise KluebookError(
                f"cannot reach the Dask scheduler {scheduler}: {type(error).__name__}"
            ) from error
        self.futures: set = set()
        # Threads only wait on futures: as many as there are runs, the scheduler queues them.
        self.concurrency = 1024

    def needs(self, request: RunRequest) -> dict[str, float]:
        if self.resources is not None:
            return self.resources
        from kluebook.tiny_model import TINY_MODEL

        return {} if request.parameters["model"] == TINY_MODEL else {"GPU": 1}

    def wait_for_worker(self, needs: dict[str, float]) -> None:
        """Wait (bounded) for a worker that has `needs`; fail with a one-line error otherwise."""
        deadline = time.monotonic() + self.worker_timeout
        while True:
            workers = self.client.scheduler_info(n_workers=-1)["workers"].values()
            if any(
                all(w.get("resources", {}).get(k, 0) >= v for k, v in needs.items())
                for w in workers
            ):
                return
            if time.monotonic() > deadline:
                offered = sorted({str(w.get("resources") or {}) for w in workers}) or ["no worker"]
                raise KluebookError(
                    f"no worker of {self.scheduler} offers {needs or 'a slot'} after "
                    f"{self.worker_timeout:.0f} s (workers offer: {', '.join(offered)}); start "
                    "workers with e.g. `dask worker SCHEDULER --resources GPU=1`"
                )
            time.sleep(1)

    def produce(self, request: RunRequest) -> RunProducts:
        needs = self.needs(request)
        self.wait_for_worker(needs)
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
