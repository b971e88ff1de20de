"""Kernels forked from a warm-kernel server, as jupyter_client launches them: asking for one.

The first kernel of an interpreter and environment starts a server (`warm_kernel_server`) with
exactly that environment, as `python -m kluebook.running.warm_kernels`: run as this module, it
has imported jupyter_client, which every kernel imports, before it forks. `WarmProvisioner` is
the jupyter_client kernel provisioner that asks the server (registered as the `kluebook-warm`
entry point). A kernel whose command or environment no server was started for, or any kernel
where KLUEBOOK_WARM_KERNELS=0 or where processes cannot fork, is launched the usual way. A
forked kernel binds the addresses its connection file names, as a fresh one does: sockets of
its own in the abstract namespace, never ports another process may have taken since they were
picked (`kernels.connection_settings`).
"""

import atexit
import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from jupyter_client.provisioning import LocalProvisioner

from kluebook.running.warm_kernel_server import KERNEL_MODULE, comparable, send, serve

PROVISIONER = "kluebook-warm"
SWITCH = "KLUEBOOK_WARM_KERNELS"  # "0": every kernel starts afresh


def _readable(connection: socket.socket, timeout: float | None) -> bool:
    return bool(select.select([connection], [], [], timeout)[0])


class ForkedKernel:
    """A kernel the server forked, as the `subprocess.Popen` jupyter_client expects: it is the
    server's child, so its exit status comes from the server, over the request's connection."""

    stdin = stdout = stderr = None

    def __init__(self, connection: socket.socket, pid: int):
        self._connection, self._reader = connection, connection.makefile("rb")
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and _readable(self._connection, 0):
            self._read_exit()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not _readable(self._connection, timeout):
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
            self._read_exit()
        return self.returncode

    def _read_exit(self) -> None:
        line = self._reader.readline()
        # No status: the server has gone before the kernel ended; its status is lost.
        self.returncode = json.loads(line)["returncode"] if line else -signal.SIGKILL
        self._connection.close()

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


@dataclass
class Server:
    """A running server, as the process that started it holds it."""

    process: subprocess.Popen
    address: str
    alive_fd: int  # closing it stops the server
    folder: str

    def fork(self, argv: list[str], env: dict, cwd: str) -> ForkedKernel | None:
        """A kernel with these arguments, environment and working folder; None if refused."""
        connection = socket.socket(socket.AF_UNIX)
        try:
            connection.connect(self.address)
            send(connection, {"argv": argv, "env": env, "cwd": cwd})
            answer = json.loads(connection.makefile("rb").readline() or "{}")
        except (OSError, ValueError):
            connection.close()
            return None
        if "pid" not in answer:
            connection.close()
            return None
        return ForkedKernel(connection, answer["pid"])

    def stop(self) -> None:
        os.close(self.alive_fd)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # still importing: it reads the pipe only after that
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


_servers: dict[str, Server] = {}
_servers_lock = threading.Lock()


def server_for(interpreter: list[str], env: dict) -> Server:
    """The server of this interpreter command and kernel environment, started on first use."""
    key = json.dumps([interpreter, comparable(env)], sort_keys=True)
    with _servers_lock:
        server = _servers.get(key)
        if server is None or server.process.poll() is not None:
            server = _servers[key] = _start_server(interpreter, env)
        return server


def _start_server(interpreter: list[str], env: dict) -> Server:
    # The socket is bound here, before the server starts, so that kernels can be asked for at
    # once: the requests wait in its backlog while the server imports.
    folder = tempfile.mkdtemp(prefix="kluebook-kernels-")
    address = os.path.join(folder, "socket")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(address)
    listener.listen(64)
    alive_read, alive_write = os.pipe()
    try:
        process = subprocess.Popen(
            [*interpreter, "-m", __name__, str(listener.fileno()), str(alive_read)],
            env=env,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            pass_fds=(listener.fileno(), alive_read),
        )
    finally:
        listener.close()
        os.close(alive_read)
    return Server(process, address, alive_write, folder)


@atexit.register
def stop_servers() -> None:
    with _servers_lock:
        for server in _servers.values():
            server.stop()
        _servers.clear()


def split_command(cmd: list[str]) -> tuple[list[str], list[str]] | None:
    """(the interpreter and its options, the kernel's arguments) of `python ... -m
    ipykernel_launcher ...` run by this interpreter; None for another command."""
    if not cmd or cmd[0] != sys.executable or KERNEL_MODULE not in cmd:
        return None
    at = cmd.index(KERNEL_MODULE)
    if cmd[at - 1] != "-m":
        return None
    return cmd[: at - 1], cmd[at + 1 :]


def provisioner_metadata() -> dict:
    """The kernel spec's metadata that has jupyter_client launch kernels through
    `WarmProvisioner`; none where the package was installed without its entry point."""
    registered = entry_points(group="jupyter_client.kernel_provisioners", name=PROVISIONER)
    return {"kernel_provisioner": {"provisioner_name": PROVISIONER}} if registered else {}


def can_fork() -> bool:
    return sys.platform == "linux" and os.environ.get(SWITCH, "1") != "0"


class WarmProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, launching kernels through a server where it can."""

    async def launch_kernel(self, cmd: list[str], **kwargs):
        parts = split_command(cmd) if can_fork() else None
        env, cwd = kwargs.get("env") or dict(os.environ), str(kwargs.get("cwd") or Path.cwd())
        kernel = None
        # No server where one cannot listen (a socket path too long for a deep TMPDIR, say).
        with contextlib.suppress(OSError):
            kernel = server_for(parts[0], env).fork(parts[1], env, cwd) if parts else None
        if kernel is None:
            return await super().launch_kernel(cmd, **kwargs)
        self.process, self.pid, self.pgid, self.cwd = kernel, kernel.pid, kernel.pid, cwd
        return self.connection_info


if __name__ == "__main__":  # the server, started by `_start_server`
    serve(int(sys.argv[1]), int(sys.argv[2]))
