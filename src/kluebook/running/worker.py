"""Where a run executes: one notebook, in a scratch folder, returning its files as data.

`produce` is the same wherever it runs: in the runner's process (`--executor local`, one run or
`--jobs N` at once) or on a Dask worker of another machine. It needs this repository's package
and environment there, not a shared filesystem: the notebook travels in the request, and the
outcome, the predictions and the executed notebook travel back in the `RunProducts`, which the
submitting checkout writes (`kluebook.running.run_store`). Before executing, it checks that the
package code and the data where it runs are those the submitting checkout fingerprinted.
"""

import json
import shutil
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.paths import ROOT
from kluebook.data.loading import data_checksum
from kluebook.methods.registry import DEFAULT_METHOD
from kluebook.recording import fingerprints, records, redaction
from kluebook.running import in_progress, kernels
from kluebook.tasks import get_task

# jupyter_client's error for a kernel that exits before it answers; a run starts its kernel up to
# KERNEL_STARTS times when it does (see `_execute_notebook`).
KERNEL_DIED_AT_START = "Kernel died before replying to kernel_info"
KERNEL_STARTS = 3


@dataclass(frozen=True)
class RunRequest:
    """One run as it is sent to where it executes (picklable, no paths of the submitting side)."""

    task: str
    name: str
    parameters: dict
    notebook: str  # the task notebook's JSON text, as the submitting checkout has it
    code_hash: str  # `fingerprints.run_code_hash` of the submitting checkout
    data_checksum: str  # `data.data_checksum` of the submitting checkout
    # None: chosen where it runs (`kernels.worker_kernel_environment`)
    kernel_env: dict | None = None
    log_output: bool = False
    method: str = DEFAULT_METHOD  # how the run is made (`kluebook.methods`, by name)


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


class Interrupted(Exception):
    """A run was cancelled before it finished (its sweep was interrupted): nothing is written."""


class EnvironmentMismatch(KluebookError):
    """The package code or data where a run executes differ from the submitting checkout's."""


def produce(request: RunRequest, kernel: kernels.StartedKernel | None = None) -> RunProducts:
    """Execute one run in a scratch folder and return what it produced; never raises for a run
    that fails (its error is in the products), so a sweep goes on and nothing is retried in vain.

    `kernel`: one started ahead with the request's kernel environment, in its own folder,
    which is then the run's scratch folder; else the run starts its kernel itself.
    """
    products = RunProducts(started=time.time(), host=where())
    scratch = kernel.folder if kernel else kernels.new_scratch()
    marker = in_progress.IN_PROGRESS / request.task / f"{request.name}.json"
    log = in_progress.LOGS / request.task / f"{request.name}.log"
    try:
        check_environment(request)
        env = (
            request.kernel_env
            if request.kernel_env is not None
            else kernels.worker_kernel_environment()
        )
        products.kernel_env = dict(env)
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w", encoding="utf-8") as file:
            in_progress.mark_in_progress(marker, request.task, request.name, products.started, log)
            log_file = RedactedLog(file, redaction.Redaction.of(request.parameters))
            _execute(request, scratch, env, products, log_file, kernel)
    except Exception as error:
        if kernels.stopping():  # its kernel was stopped: the sweep is being interrupted
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
    kernel: kernels.StartedKernel | None,
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
    before its first reply: no cell has run then. Outside Linux kernels talk over TCP, where two
    kernels started at once can pick the same free port (jupyter_client finds a port, frees it,
    and the kernel binds it later) and the loser dies on "Address already in use"; on Linux they
    have no ports (`kernels.connection_settings`)."""
    import papermill  # lazy: nbclient and jupyter load only where a run executes

    from kluebook.running import papermill_engine

    for attempt in range(1, KERNEL_STARTS + 1):
        manager = started if attempt == 1 and started else kernels.kernel_manager(env)
        kernels.track(manager)
        try:
            papermill.execute_notebook(
                str(source),
                str(executed),
                parameters=request.parameters,
                kernel_name=kernels.kernel_name(env),
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
            kernels.stop(manager)  # papermill leaves running a kernel whose manager it was given
