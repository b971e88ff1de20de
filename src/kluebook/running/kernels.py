"""A run's kernel: the environment it runs with, its kernel spec, and starting and stopping it.

How a kernel and the process that runs it talk (`connection_settings`): on Linux over ZeroMQ's
IPC transport, on Unix sockets in the abstract namespace named after a random identifier drawn
for each kernel manager, so that no two kernels, nor any other program by chance, want the same
address. Over TCP, jupyter_client picks five free ports, frees them, and the kernel binds them
later; another kernel or program can take one in between and the kernel dies on "Address
already in use", at random under `--jobs 4`. The abstract namespace has no files to clean up and
no path length to exceed (a socket file under a deep runtime folder could). Forked kernels
(`warm_kernels`) and fresh ones alike get their addresses this way: the kernel manager writes
them into the connection file both read. Elsewhere than on Linux kernels talk over TCP on
localhost, and a run starts its kernel again when it dies before its first reply
(`worker.KERNEL_STARTS`).
"""

import asyncio
import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kluebook.common.json_files import write_text_atomic
from kluebook.common.paths import CACHE

if TYPE_CHECKING:  # named in an annotation: jupyter_client is imported when a kernel starts
    from jupyter_client.manager import AsyncKernelManager

# What every kernel runs with besides the environment of the process that starts it: no progress
# bars and no tqdm warning (with this machine's paths) in the executed pages.
KERNEL_ENVIRONMENT = {
    "PYTHONWARNINGS": "ignore:IProgress not found",
    "TQDM_DISABLE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
}
# The kernel logs errors only: its warning that a local kernel talks over TCP without encryption
# would otherwise be printed once per run.
KERNEL_COMMAND = (
    sys.executable,
    "-Xfrozen_modules=off",
    "-m",
    "ipykernel_launcher",
    "--IPKernelApp.log_level=ERROR",
)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
# The kernels this process started and has not shut down yet, and whether it is stopping them.
_kernels: set = set()
_stopping = threading.Event()


@dataclass
class StartedKernel:
    """A kernel started before the run that will use it (`start_kernel`): its manager, and its
    working folder, which becomes that run's scratch folder."""

    manager: "AsyncKernelManager"
    folder: Path


def new_scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="kluebook-run-"))


def start_kernel(env: dict) -> StartedKernel:
    """A kernel of this environment, started as papermill would start it, in a new scratch
    folder; it waits for a run (`worker.produce`), or is stopped by `discard`."""
    folder = new_scratch()
    manager = kernel_manager(env)
    track(manager)
    try:
        asyncio.run(manager.start_kernel(cwd=str(folder)))
    except BaseException:
        discard(StartedKernel(manager, folder))
        raise
    return StartedKernel(manager, folder)


def discard(kernel: StartedKernel) -> None:
    """Stop a kernel no run will use, and remove its folder."""
    stop(kernel.manager)
    shutil.rmtree(kernel.folder, ignore_errors=True)


def track(manager) -> None:
    """Count `manager`'s kernel among those `stop_kernels` kills, until `stop`."""
    _kernels.add(manager)


def stop(manager) -> None:
    """Kill `manager`'s kernel if it is still running, and stop tracking it."""
    _kernels.discard(manager)
    kill(manager)


def stop_kernels() -> int:
    """Kill every kernel this process started that is still running (the sweep is interrupted);
    the runs they executed raise `worker.Interrupted`. Returns how many were killed."""
    _stopping.set()
    return sum(kill(manager) for manager in list(_kernels))


def stopping() -> bool:
    """Whether `stop_kernels` was called (the sweep is being interrupted)."""
    return _stopping.is_set()


def kill(manager) -> bool:
    """Kill `manager`'s kernel and what it started, if it is still running."""
    process = getattr(getattr(manager, "provisioner", None), "process", None)
    if process is None or process.poll() is not None:
        return False
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        process.kill()
    process.wait()
    manager.cleanup_connection_file()
    return True


def worker_kernel_environment() -> dict:
    """The kernel environment of a run on a Dask worker, where nobody chose it.

    Threads: the cores of the machine, or of the Slurm job the worker runs in, shared among the
    runs the worker executes at once (its threads, or its `run` resource where it offers one);
    outside a Slurm job, OMP_NUM_THREADS wins where it is set (inside one it is the nanny's 1,
    not a choice). GPU: the first of the worker's CUDA_VISIBLE_DEVICES, which is the worker's
    own GPU with dask-cuda (it lists the others after it), so that a run never spreads over
    several GPUs (the Trainer would, with DataParallel).
    """
    env = {}
    devices = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    if "," in devices:
        env["CUDA_VISIBLE_DEVICES"] = devices.split(",")[0].strip()
    in_slurm_job = "SLURM_JOB_ID" in os.environ
    if not in_slurm_job and any(name in os.environ for name in THREAD_VARIABLES):
        return env
    try:
        from distributed import get_worker  # optional: the dask extra

        state = get_worker().state
        slots = min(state.nthreads, int(state.total_resources.get("run", state.nthreads)))
    except (ImportError, ValueError):
        return env
    return {**env, **thread_environment(max(1, job_cpus() // max(1, slots)))}


def job_cpus() -> int:
    """The cores this process may use: its Slurm job's (SLURM_CPUS_PER_TASK), else the machine's."""
    cpus = os.environ.get("SLURM_CPUS_PER_TASK", "")
    return int(cpus) if cpus.isdigit() else available_cpus()


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def thread_environment(threads: int) -> dict:
    return {name: str(threads) for name in THREAD_VARIABLES}


def kernel_name(env: dict) -> str:
    """A kernel of this interpreter per kernel environment: `kluebook` or `kluebook-<hash>`."""
    if not env:
        return "kluebook"
    digest = hashlib.sha256(json.dumps(env, sort_keys=True).encode()).hexdigest()[:10]
    return f"kluebook-{digest}"


def kernel_folder() -> Path:
    return CACHE / "jupyter" / "kernels"


def kernel_manager(env: dict):
    """A kernel manager for a kernel that runs this interpreter with KERNEL_ENVIRONMENT and `env`,
    whatever kernels a user has installed elsewhere: its spec is written under the cache and only
    that folder is searched. Nothing in this process's environment changes, so runs started from
    several threads at once each get their own."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    from kluebook.running import warm_kernels  # it loads jupyter_client too

    name = kernel_name(env)
    spec = {
        "argv": [*KERNEL_COMMAND, "-f", "{connection_file}"],
        "display_name": name,
        "language": "python",
        "env": {**KERNEL_ENVIRONMENT, **env},
        "metadata": {"debugger": False, **warm_kernels.provisioner_metadata()},
    }
    path = kernel_folder() / name / "kernel.json"
    text = json.dumps(spec, indent=1, sort_keys=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        write_text_atomic(path, text)
    specs = KernelSpecManager(kernel_dirs=[str(kernel_folder())])
    return AsyncKernelManager(kernel_name=name, kernel_spec_manager=specs, **connection_settings())


def connection_settings() -> dict:
    """The transport and address of a new kernel manager's kernel: on Linux, IPC sockets in the
    abstract namespace (the leading "@") under a name of its own; elsewhere TCP on localhost
    (jupyter_client's default)."""
    if sys.platform != "linux":
        return {}
    return {"transport": "ipc", "ip": f"@kluebook-kernel-{uuid.uuid4().hex}"}
