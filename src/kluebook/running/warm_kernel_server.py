"""The warm-kernel server: it imports the libraries the notebooks use once, then forks kernels.

A fresh kernel spends most of a smoke run's start-up importing torch, transformers, datasets and
scikit-learn, several CPU seconds every run. The server (`serve`) imports those libraries once,
then forks one kernel per request. A forked kernel runs the same interpreter, arguments,
environment and working folder as one started afresh; only the libraries are already in memory.
What is imported is read from the code (`preloaded_imports`): the notebooks' imports of other
packages and those of the kluebook modules they import, never kluebook itself (each kernel
imports the package code as it is now). matplotlib reads its backend from the environment when
first imported: the server sets it first, as ipykernel sets it in a kernel (`INLINE_BACKEND`
unless the environment names one), and the backend's own module, which hooks into the kernel's
shell, is left to the kernel. What the imports created is frozen (`gc.freeze`) before the first
fork, so that a kernel's garbage collector never walks it.
"""

import ast
import builtins
import contextlib
import gc
import importlib
import json
import os
import runpy
import selectors
import signal
import socket
import sys
import threading

from kluebook.common.paths import PACKAGED_NOTEBOOKS
from kluebook.recording import code_closure

KERNEL_MODULE = "ipykernel_launcher"
# Set by jupyter_client for each kernel it launches; anything else must match the server's.
PER_KERNEL_PREFIX = "JPY_"
# Imported by the kernel itself, never ahead of it: the inline backend hooks into the kernel's
# shell when imported. A server where it was imported all the same forks nothing.
NOT_PRELOADED = ("matplotlib_inline",)
# The backend ipykernel gives matplotlib where the kernel's environment names none (MPLBACKEND).
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


class _KernelShell:
    """What a library that asks, when first imported, whether it runs in a Jupyter kernel (the
    `get_ipython` built-in, as pandas does for its display width) is told in the server: yes,
    as it would be in the kernel it is imported for."""

    kernel = None


def preloaded_imports() -> list[tuple[str, tuple[str, ...]]]:
    """The module-level imports of other packages that the packaged notebooks make and that the
    kluebook modules they import make: (module, names taken from it)."""
    notebooks = [path.read_text(encoding="utf-8") for path in PACKAGED_NOTEBOOKS.glob("*.ipynb")]
    entry = [module for text in notebooks for module in code_closure.notebook_imports(text)]
    sources = [code_closure.notebook_code(text) for text in notebooks]
    sources += [path.read_text(encoding="utf-8") for path in code_closure.closure(entry).values()]
    found = set()
    for source in sources:
        for node in ast.parse(source).body:
            if isinstance(node, ast.Import):
                found.update((alias.name, ()) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add((node.module, tuple(sorted(alias.name for alias in node.names))))
    return sorted(
        (module, names)
        for module, names in found
        if module.split(".")[0] not in (code_closure.PACKAGE, *NOT_PRELOADED)
    )


def preload() -> None:
    """Import what `preloaded_imports` lists; a module that fails to import is left to the
    kernel (it fails there, as it would in a fresh kernel). matplotlib, if imported, finds the
    backend a kernel gives it."""
    if not os.environ.get("MPLBACKEND"):  # ipykernel's own rule
        os.environ["MPLBACKEND"] = INLINE_BACKEND
    builtins.get_ipython = _KernelShell
    try:
        import_all(preloaded_imports())
    finally:
        del builtins.get_ipython


def import_all(imports: list[tuple[str, tuple[str, ...]]]) -> None:
    """Import each module and take the names listed from it (lazily loaded ones included)."""
    for module, names in imports:
        try:
            imported = importlib.import_module(module)
            for name in names:
                getattr(imported, name, None)  # a package's lazily loaded submodule or class
        except Exception:
            continue


def serve(listener_fd: int, alive_fd: int) -> None:
    """The server: preload, then fork a kernel for each request on the listening socket until
    the process that started it closes `alive_fd`; each exit status goes back to its requester.
    One thread, so that no lock is held by another thread when it forks."""
    started_with = dict(os.environ)
    preload()
    # What the imports made lives as long as the kernels: frozen, it is left out of their
    # garbage collections, which otherwise walk it again and again while a model trains.
    gc.collect()
    gc.freeze()
    # What the imports set in the environment (scikit-learn's KMP_* defaults, for one), as
    # they would have set it in a fresh kernel: each forked kernel's environment gets it too.
    set_by_imports = {k: v for k, v in os.environ.items() if started_with.get(k) != v}
    listener = socket.socket(fileno=listener_fd)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    for fileobj in (listener, wake_read, alive_fd):
        selector.register(fileobj, selectors.EVENT_READ)
    requesters: dict[int, socket.socket] = {}
    while True:
        for key, _ in selector.select():
            if key.fileobj is listener:
                connection, _ = listener.accept()
                open_fds = [listener_fd, wake_read, wake_write, alive_fd, selector.fileno()]
                open_fds += [requester.fileno() for requester in requesters.values()]
                pid = _fork_kernel(connection, started_with, set_by_imports, open_fds)
                if pid:
                    requesters[pid] = connection
            elif key.fileobj == wake_read:
                os.read(wake_read, 512)
                _report_exits(requesters)
            elif not os.read(alive_fd, 512):
                return  # the process that started this server has gone


def _fork_kernel(
    connection: socket.socket, server_env: dict, set_by_imports: dict, server_fds: list[int]
) -> int | None:
    """Fork a kernel for the request on `connection`; answer with its pid, or with why not."""
    request = json.loads(connection.makefile("rb").readline() or "null")
    reason = _refusal(request, server_env)
    if reason:
        send(connection, {"refused": reason})
        connection.close()
        return None
    pid = os.fork()
    if pid == 0:
        request["env"] = {**request["env"], **set_by_imports}
        _become_kernel(request, [*server_fds, connection.fileno()])
    send(connection, {"pid": pid})
    return pid


def _refusal(request, server_env: dict) -> str:
    """Why this server cannot fork the kernel asked for ("" if it can)."""
    if not isinstance(request, dict) or {"argv", "env", "cwd"} - set(request):
        return "not a kernel request"
    if comparable(request["env"]) != comparable(server_env):
        return "the kernel's environment is not the server's"
    if any(module in sys.modules for module in NOT_PRELOADED):
        return f"{', '.join(NOT_PRELOADED)} was imported ahead of the kernel"
    if threading.active_count() > 1:
        return "the server runs threads"  # forking them would copy held locks
    return ""


def _become_kernel(request: dict, fds_to_close: list[int]) -> None:
    """In the forked child: become the kernel `python -m ipykernel_launcher <argv>` would be."""
    code = 1
    try:
        os.setsid()  # its own process group, as jupyter_client starts kernels
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in fds_to_close:
            os.close(fd)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.chdir(request["cwd"])
        # The kernel watches its parent, the server, as a fresh one watches the process that
        # launched it (the server ends when that process ends).
        parent = str(os.getppid())
        os.environ.clear()
        os.environ.update({**request["env"], "JPY_PARENT_PID": parent})
        sys.path[0] = request["cwd"]  # what `python -m` puts first (the launcher removes it)
        sys.argv = [sys.argv[0], *request["argv"], f"--IPKernelApp.parent_handle={parent}"]
        runpy.run_module(KERNEL_MODULE, run_name="__main__", alter_sys=True)  # as `-m` runs it
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _report_exits(requesters: dict[int, socket.socket]) -> None:
    """Send the exit status of every kernel that has ended to the process that asked for it."""
    for pid in list(requesters):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            connection = requesters.pop(pid)
            with contextlib.suppress(OSError):  # the requester may have gone
                send(connection, {"returncode": os.waitstatus_to_exitcode(status)})
            connection.close()


def send(connection: socket.socket, message: dict) -> None:
    """A message between the server and a requester: one line of JSON."""
    connection.sendall(json.dumps(message).encode() + b"\n")


def comparable(env) -> dict:
    """`env` less what jupyter_client sets for each kernel: what must be the server's."""
    return {k: v for k, v in env.items() if not k.startswith(PER_KERNEL_PREFIX)}
