"""Where a run executes: one notebook, in a scratch folder, returning its files as data.

`produce` is the same wherever it runs: in the runner's process (`--executor local`, one run or
`--jobs N` at once) or on a Dask worker of another machine. It needs this repository's package
and environment there, not a shared filesystem: the notebook travels in the request, and the
outcome, the predictions and the executed notebook travel back in the `RunProducts`, which the
submitting checkout writes (`kluebook.running.run_store`). Before executing, it checks that the
package code and the data where it runs are those the submitting checkout fingerprinted.
"""

import asyncio
import hashlib
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_json, write_text_atomic
from kluebook.common.paths import CACHE, ROOT
from kluebook.data.loading import data_checksum
from kluebook.recording import fingerprints, records, redaction
from kluebook.tasks import get_task

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
# Runs in progress here: one marker each (what it is, its host and process, its log), removed
# when the run ends; and each run's log, the kernel's stdout and stderr as they come.
IN_PROGRESS = CACHE / "in-progress"
LOGS = CACHE / "logs"
# The kernels this process started and has not shut down yet, and whether it is stopping them.
_kernels: set = set()
# jupyter_client's error for a kernel that exits before it answers; a run starts its kernel up to
# KERNEL_STARTS times when it does (see `_execute_notebook`).
KERNEL_DIED_AT_START = "Kernel died before replying to kernel_info"
KERNEL_STARTS = 3
_stopping = threading.Event()


@dataclass(frozen=True)
class RunRequest:
    """One run as it is sent to where it executes (picklable, no paths of the submitting side)."""

    task: str
    name: str
    parameters: dict
    notebook: str  # the task notebook's JSON text, as the submitting checkout has it
    code_hash: str  # `fingerprints.run_code_hash` of the submitting checkout
    data_checksum: str  # `data.data_checksum` of the submitting checkout
    kernel_env: dict | None = None  # None: chosen where it runs (`worker_kernel_environment`)
    log_output: bool = False
    method: str = fingerprints.FINE_TUNED  # how the run is made (the notebook it executes)


@dataclass
class RunProducts:
    """What a run produced, as data: the notebook's outcome and the bytes of its files."""

    started: float
    host: str
    finished: float = 0.0
    outcome: dict | None = None
    predictions: bytes | None = None
    executed: bytes | None = None  # the executed notebook; for a failed run, as far as it got
    error: str | None = None  # "Type: last line of the message"; None if the run succeeded
    traceback: str | None = None
    kernel_env: dict = field(default_factory=dict)

    @property
    def succeeded(self) -> bool:
        return self.error is None


@dataclass
class StartedKernel:
    """A kernel started before the run that will use it (`start_kernel`): its manager, and its
    working folder, which becomes that run's scratch folder."""

    manager: "AsyncKernelManager"
    folder: Path


class Interrupted(Exception):
    """A run was cancelled before it finished (its sweep was interrupted): nothing is written."""


class EnvironmentMismatch(KluebookError):
    """The package code or data where a run executes differ from the submitting checkout's."""


def produce(request: RunRequest, kernel: StartedKernel | None = None) -> RunProducts:
    """Execute one run in a scratch folder and return what it produced; never raises for a run
    that fails (its error is in the products), so a sweep goes on and nothing is retried in vain.

    `kernel`: one started ahead with the request's kernel environment, in its own folder,
    which is then the run's scratch folder; else the run starts its kernel itself.
    """
    products = RunProducts(started=time.time(), host=where())
    scratch = kernel.folder if kernel else new_scratch()
    marker = IN_PROGRESS / request.task / f"{request.name}.json"
    log = LOGS / request.task / f"{request.name}.log"
    try:
        check_environment(request)
        env = request.kernel_env if request.kernel_env is not None else worker_kernel_environment()
        products.kernel_env = dict(env)
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w", encoding="utf-8") as file:
            mark_in_progress(marker, request, products, log)
            log_file = RedactedLog(file, redaction.Redaction.of(request.parameters))
            _execute(request, scratch, env, products, log_file, kernel)
    except Exception as error:
        if _stopping.is_set():  # its kernel was stopped: the sweep is being interrupted
            raise Interrupted(request.name) from error
        products.error, products.traceback = redaction.describe_error(error, request.parameters)
    finally:
        products.finished = time.time()
        marker.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)
    return products


class RedactedLog:
    """A run's log: what the kernel prints, written redacted (no secret of the run, no path of
    this machine)."""

    def __init__(self, file, redact: redaction.Redaction):
        self.file, self.redact = file, redact

    def write(self, text: str) -> int:
        return self.file.write(self.redact(text))

    def flush(self) -> None:
        self.file.flush()


def new_scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="kluebook-run-"))


def start_kernel(env: dict) -> StartedKernel:
    """A kernel of this environment, started as papermill would start it, in a new scratch
    folder; it waits for a run (`produce`), or is stopped by `discard`."""
    folder = new_scratch()
    manager = kernel_manager(env)
    _kernels.add(manager)
    try:
        asyncio.run(manager.start_kernel(cwd=str(folder)))
    except BaseException:
        discard(StartedKernel(manager, folder))
        raise
    return StartedKernel(manager, folder)


def discard(kernel: StartedKernel) -> None:
    """Stop a kernel no run will use, and remove its folder."""
    _kernels.discard(kernel.manager)
    _kill(kernel.manager)
    shutil.rmtree(kernel.folder, ignore_errors=True)


def mark_in_progress(marker: Path, request: RunRequest, products: RunProducts, log: Path) -> None:
    write_json(
        marker,
        {
            "task": request.task,
            "name": request.name,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "started": products.started,
            "log": str(log.relative_to(ROOT)) if log.is_relative_to(ROOT) else str(log),
        },
    )


def runs_in_progress() -> list[dict]:
    """The runs executing on this book root now, each with the last line of its log; a marker
    left by a process of this host that is gone is dropped."""
    found = []
    for marker in sorted(IN_PROGRESS.glob("*/*.json")):
        try:
            run = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # being written or removed
        if run.get("host") == socket.gethostname() and not _alive(run.get("pid")):
            marker.unlink(missing_ok=True)
            continue
        log = ROOT / run["log"]
        lines = (
            log.read_text(encoding="utf-8", errors="replace").splitlines() if log.exists() else []
        )
        last = next((line.strip() for line in reversed(lines) if line.strip()), "")
        found.append({**run, "last_line": last})
    return found


def _alive(pid) -> bool:
    try:
        os.kill(int(pid), 0)
    except (TypeError, ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def stop_kernels() -> int:
    """Kill every kernel this process started that is still running (the sweep is interrupted);
    the runs they executed raise `Interrupted`. Returns how many were killed."""
    _stopping.set()
    return sum(_kill(manager) for manager in list(_kernels))


def _kill(manager) -> bool:
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


def where() -> str:
    """This machine's name, and the Dask worker's when a worker executes the run."""
    try:
        from distributed import get_worker  # optional: the dask extra

        return f"{socket.gethostname()} (dask worker {get_worker().name})"
    except (ImportError, ValueError):
        return socket.gethostname()


def check_environment(request: RunRequest) -> None:
    """Refuse to run where the package code or the data differ from what was fingerprinted."""
    task = get_task(request.task)
    here = socket.gethostname()
    if fingerprints.run_code_hash(task, request.method) != request.code_hash:
        raise EnvironmentMismatch(
            f"the kluebook code on {here} differs from the submitting checkout's "
            f"({request.task}); install the same commit there"
        )
    parameters = request.parameters
    checksum = data_checksum(
        task,
        parameters["data_source"],
        data_path(parameters["data_dir"]),
        parameters.get("data_revision", ""),
    )
    if checksum != request.data_checksum:
        raise EnvironmentMismatch(
            f"the {request.task} data on {here} differ from the submitting checkout's "
            f"(data_source {parameters['data_source']}, data_dir {parameters['data_dir']!r})"
        )


def data_path(data_dir: str) -> Path | None:
    """A run's data folder: a relative one is relative to the book root, as in the notebook."""
    if not data_dir:
        return None
    path = Path(data_dir)
    return path if path.is_absolute() else ROOT / path


def _execute(
    request: RunRequest,
    scratch: Path,
    env: dict,
    products: RunProducts,
    log_file,
    kernel: StartedKernel | None,
) -> None:
    source = scratch / "input.ipynb"
    source.write_text(request.notebook, encoding="utf-8")
    executed = scratch / "executed.ipynb"
    for name in ("data_dir", "model"):
        # The kernel runs in the scratch folder; a relative data folder or model folder given
        # to the run is the book root's.
        value = request.parameters.get(name) or ""
        if value and not Path(value).is_absolute() and (ROOT / value).exists():
            link = scratch / value
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(ROOT / value, target_is_directory=True)
    output_dir = Path(request.parameters["output_dir"])
    output_dir = output_dir if output_dir.is_absolute() else scratch / output_dir
    try:
        started = kernel.manager if kernel else None
        _execute_notebook(source, executed, request, env, scratch, log_file, started)
        outcome_path = output_dir / records.OUTCOME_FILE
        if not outcome_path.exists():
            raise KluebookError("the notebook ended without calling finish_run (no outcome.json)")
        products.outcome = json.loads(outcome_path.read_text(encoding="utf-8"))
        products.predictions = (output_dir / records.PREDICTIONS_FILE).read_bytes()
    finally:
        if executed.exists():  # papermill injected the server's address, a traceback has paths
            text = executed.read_text(encoding="utf-8")
            redact = redaction.Redaction.of(request.parameters)
            products.executed = redact(text, in_json=True).encode()


def _execute_notebook(
    source: Path,
    executed: Path,
    request: RunRequest,
    env: dict,
    scratch: Path,
    log_file,
    started=None,
) -> None:
    """papermill on a kernel of our own (`started`, a manager whose kernel has been started
    ahead, or one papermill starts), started again (up to KERNEL_STARTS times) when it dies
    before its first reply: no cell has run then. Two kernels started at once can pick the same
    free port (jupyter_client finds a port, frees it, and the kernel binds it later), and the
    loser dies on "Address already in use"."""
    import papermill  # lazy: nbclient and jupyter load only where a run executes

    from kluebook.running import papermill_engine

    for attempt in range(1, KERNEL_STARTS + 1):
        manager = started if attempt == 1 and started else kernel_manager(env)
        _kernels.add(manager)
        try:
            papermill.execute_notebook(
                str(source),
                str(executed),
                parameters=request.parameters,
                kernel_name=kernel_name(env),
                km=manager,
                stdout_file=log_file,
                stderr_file=log_file,
                # The kernel's working folder; papermill's own `cwd` would chdir this process.
                resources={"metadata": {"path": str(scratch)}},
                log_output=request.log_output,
                progress_bar=False,
                engine_name=papermill_engine.NAME,
            )
            return
        except RuntimeError as error:
            if str(error) != KERNEL_DIED_AT_START or attempt == KERNEL_STARTS:
                raise
            log_file.write(f"kluebook: the kernel died while starting ({error}); again\n")
        finally:
            _kernels.discard(manager)
            _kill(manager)  # papermill leaves running a kernel whose manager it was given


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
    return AsyncKernelManager(kernel_name=name, kernel_spec_manager=specs)
