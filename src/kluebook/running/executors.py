"""Where the runs of a sweep execute: what an executor is, and the executor of this machine.

- `LocalExecutor(jobs=1)`: today's default, one run after another in this machine's kernels.
- `LocalExecutor(jobs=N)`: N runs at once on this machine, each with `threads` CPU threads
  (OMP_NUM_THREADS / MKL_NUM_THREADS in each kernel's environment, which torch follows; default
  1 whatever N, since CPU float sums depend on the thread count and records must not depend on
  --jobs) and, on a machine with GPUs, its own GPU (CUDA_VISIBLE_DEVICES).

The executors of a Dask cluster and of Slurm jobs are in `cluster_executors`. An executor's
`produce(request)` blocks until the run's products are back; the runner calls it from as many
threads as `concurrency`.
"""

import os
import queue
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from kluebook.common.errors import KluebookError
from kluebook.running.kernels import (
    THREAD_VARIABLES,
    StartedKernel,
    discard,
    start_kernel,
    stop_kernels,
    thread_environment,
)
from kluebook.running.worker import RunProducts, RunRequest, produce
from kluebook.training.devices import visible_gpus
from kluebook.training.tiny_model import TINY_CAUSAL_LM, TINY_MODEL

# The offline stand-ins (the encoder and the causal LM): small enough for a CPU, no GPU asked.
STAND_INS = frozenset((TINY_MODEL, TINY_CAUSAL_LM))


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

    def start_kernels(self, runs: int) -> None:
        """The sweep will hand over up to `runs` runs: start what they will run on, if anything
        can be started ahead here."""

    def produce(self, request: RunRequest) -> RunProducts:
        raise NotImplementedError

    def cancel(self) -> None:
        """Stop what can be stopped (the sweep was interrupted)."""

    def close(self) -> None:
        pass


# CPU threads per local run unless --threads says otherwise: CPU float sums depend on the thread
# count, so a default that followed --jobs would make records depend on it.
DEFAULT_THREADS = 1


class LocalExecutor(Executor):
    """`jobs` runs at once on this machine, each in its own kernel with `threads` CPU threads
    (default: `DEFAULT_THREADS`, or this process's OMP_NUM_THREADS where it is set, whatever
    `jobs` is) and, if there are GPUs, its own GPU."""

    def __init__(self, jobs: int = 1, threads: int | None = None, gpus: list[str] | None = None):
        if jobs < 1:
            raise KluebookError(f"--jobs must be at least 1, got {jobs}")
        if threads is not None and threads < 1:
            raise KluebookError(f"--threads must be at least 1, got {threads}")
        self.gpus = visible_gpus() if gpus is None else gpus
        self.concurrency = jobs
        self.description = f"{jobs} at once" if jobs > 1 else "local"
        if threads is None and not any(name in os.environ for name in THREAD_VARIABLES):
            threads = DEFAULT_THREADS
        self.slots: queue.Queue[int] = queue.Queue()
        self.environments: list[dict] = []  # each slot's kernel environment
        for index in range(jobs):
            env = thread_environment(threads) if threads else {}
            # One GPU per run, also for one job at a time (else the Trainer would spread a run
            # over every GPU with DataParallel); more jobs than GPUs: tiny-model runs only.
            if self.gpus and (jobs > 1 or len(self.gpus) > 1):
                env["CUDA_VISIBLE_DEVICES"] = self.gpus[index % len(self.gpus)]
            self.environments.append(env)
            self.slots.put(index)
        # Kernels started ahead (`start_kernels`): per slot, the one its next run takes, each
        # started by the slot's own thread; and how many more may be started.
        self.ahead: dict[int, Future[StartedKernel]] = {}
        self.starters = [ThreadPoolExecutor(1, f"kernel-ahead-{i}") for i in range(jobs)]
        self.ahead_left = 0
        self.ahead_lock = threading.Lock()

    def check(self, models: set[str]) -> None:
        if self.gpus and self.concurrency > len(self.gpus) and models - STAND_INS:
            raise KluebookError(
                f"--jobs {self.concurrency} on a machine with {len(self.gpus)} GPU(s): each run of "
                f"a real checkpoint needs its own GPU; use --jobs {len(self.gpus)} or fewer"
            )

    def start_kernels(self, runs: int) -> None:
        """Start a kernel for each slot now, then, while a run executes, the one its slot's next
        run will take, `runs` in all: no run waits for its kernel to start, and the first (which
        starts the warm-kernel server, `kluebook.running.warm_kernels`) starts while the sweep is
        still being planned."""
        with self.ahead_lock:
            self.ahead_left = runs
            for index in range(self.concurrency):
                self._start_ahead(index)

    def _start_ahead(self, index: int) -> None:
        if self.ahead_left > 0 and index not in self.ahead:
            self.ahead_left -= 1
            environment = self.environments[index]
            self.ahead[index] = self.starters[index].submit(start_kernel, environment)

    def cancel(self) -> None:
        stop_kernels()

    def close(self) -> None:
        with self.ahead_lock:
            self.ahead_left = 0
            waiting, self.ahead = list(self.ahead.values()), {}
        for started in filter(None, map(_result, waiting)):
            discard(started)
        for starter in self.starters:
            starter.shutdown()

    def produce(self, request: RunRequest) -> RunProducts:
        index = self.slots.get()
        try:
            with self.ahead_lock:
                ahead = self.ahead.pop(index, None)
                self._start_ahead(index)  # the slot's next run's, while this one executes
            env = self.environments[index]
            return produce(replace(request, kernel_env=env), _result(ahead))
        finally:
            self.slots.put(index)


def _result(started: Future | None) -> StartedKernel | None:
    """The kernel a start ahead gave; None where it failed (the run then starts its own, and
    reports what fails)."""
    try:
        return started.result() if started else None
    except Exception:
        return None
