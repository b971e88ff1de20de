"""Kernels forked from a server that has imported the libraries already: they are forked, they
see what a fresh kernel sees, they stop and die like one, they start, as fresh ones do, when the
ports they would have been given are taken, and a run on them makes the record and the page a
fresh kernel makes."""

import asyncio
import json
import os
import re
import signal
import socket
import sys

import pytest

from kluebook.running import kernels, warm_kernels

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")

# What a kernel can tell about where it runs: its folder, path, arguments, environment, and
# what the libraries it imports decide from where they are imported.
PROBE = """
import json, os, sys
from kluebook.running.warm_kernel_server import import_all, preloaded_imports
from kluebook.running.warm_kernels import SWITCH
import_all(preloaded_imports())  # what a notebook imports, here too in a fresh kernel
import matplotlib, pandas, torch
from tqdm.auto import tqdm
print(json.dumps({
    "cwd": os.getcwd(),
    "path0": sys.path[0],
    "argv0": os.path.basename(sys.argv[0]),
    "env": {k: v for k, v in os.environ.items() if not k.startswith("JPY_") and k != SWITCH},
    "parent_watched": bool(os.environ.get("JPY_PARENT_PID")),
    "max_columns": pandas.get_option("display.max_columns"),
    "backend": matplotlib.get_backend(),
    "threads": torch.get_num_threads(),
    "tqdm": tqdm.__module__,
    "main": sys.modules["__main__"].__name__,
}))
"""


async def _start(folder, env: dict):
    manager = kernels.kernel_manager(env)
    await manager.start_kernel(cwd=str(folder))
    client = manager.client()
    client.start_channels()
    await client.wait_for_ready(timeout=120)
    return manager, client


async def _probe(folder, env: dict, code: str = PROBE) -> tuple[dict, object]:
    manager, client = await _start(folder, env)
    printed = []

    def keep(message):
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])

    await client.execute_interactive(code, timeout=120, output_hook=keep)
    process = manager.provisioner.process
    client.stop_channels()
    await manager.shutdown_kernel()
    return json.loads("".join(printed)), process


@pytest.fixture
def servers():
    yield
    warm_kernels.stop_servers()


def test_a_forked_kernel_sees_what_a_fresh_one_sees(tmp_path, monkeypatch, servers):
    env = kernels.thread_environment(1)
    warm, warm_process = asyncio.run(_probe(tmp_path, env))
    monkeypatch.setenv(warm_kernels.SWITCH, "0")
    fresh, fresh_process = asyncio.run(_probe(tmp_path, env))
    assert isinstance(warm_process, warm_kernels.ForkedKernel)
    assert not isinstance(fresh_process, warm_kernels.ForkedKernel)
    assert warm == fresh
    assert warm["max_columns"] == 20  # pandas' choice inside a kernel (0 in a terminal)
    assert warm["threads"] == 1 and warm["parent_watched"]


@pytest.fixture
def ports_taken(monkeypatch):
    """Each TCP port jupyter_client gives a kernel is taken before the kernel binds it, as
    another kernel or program starting in between may take it: the picked port is listened on
    here first."""
    from jupyter_client.provisioning.local_provisioner import LocalPortCache

    held = []

    def taken_port(cache, ip: str) -> int:
        sock = socket.socket()
        sock.bind((ip, 0))
        sock.listen()
        held.append(sock)
        return sock.getsockname()[1]

    monkeypatch.setattr(LocalPortCache, "find_available_port", taken_port)
    yield
    for sock in held:
        sock.close()


@pytest.mark.parametrize("switch", ["1", "0"], ids=["forked", "fresh"])
def test_a_kernel_starts_though_the_ports_it_would_be_given_are_taken(
    tmp_path, monkeypatch, servers, ports_taken, switch
):
    monkeypatch.setenv(warm_kernels.SWITCH, switch)
    answer, process = asyncio.run(_probe(tmp_path, {}, "print(6 * 7)"))
    assert answer == 42
    assert isinstance(process, warm_kernels.ForkedKernel) == (switch == "1")


def test_the_server_has_imported_the_libraries_before_the_kernel_starts(tmp_path, servers):
    code = "import sys; print(__import__('json').dumps(sorted({'torch', 'transformers', "
    code += "'sklearn', 'matplotlib'} & set(sys.modules))))"
    imported, process = asyncio.run(_probe(tmp_path, {}, code))
    assert isinstance(process, warm_kernels.ForkedKernel)
    assert imported == ["matplotlib", "sklearn", "torch", "transformers"]


def test_what_the_server_imported_is_left_out_of_a_kernels_garbage_collections(tmp_path, servers):
    code = "import gc, torch; print(gc.get_freeze_count())"
    frozen, process = asyncio.run(_probe(tmp_path, {}, code))
    assert isinstance(process, warm_kernels.ForkedKernel)
    assert frozen > 100_000  # torch and transformers alone make hundreds of thousands of objects


def test_an_environment_other_than_the_servers_is_refused(tmp_path, servers):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    server = warm_kernels.server_for([sys.executable], env)
    other = {**env, "OMP_NUM_THREADS": "2"}
    assert server.fork(["--version"], other, str(tmp_path)) is None


def test_a_killed_forked_kernel_reports_its_signal(tmp_path, servers):
    async def kill_it():
        manager, client = await _start(tmp_path, {})
        process = manager.provisioner.process
        client.stop_channels()
        assert kernels.kill(manager)  # what an interrupted sweep does
        return process

    process = asyncio.run(kill_it())
    assert isinstance(process, warm_kernels.ForkedKernel)
    assert process.poll() == -signal.SIGKILL


def test_the_server_ends_with_the_process_that_started_it(tmp_path, servers):
    server = warm_kernels.server_for([sys.executable], dict(os.environ))
    warm_kernels.stop_servers()
    assert server.process.poll() is not None


TIMINGS = re.compile(r"'(\w+_runtime|\w+_per_second)': '[^']*'")
MEASURED = {
    "started_at",
    "finished_at",
    "wall_time_s",
    "notebook_wall_time_s",
    "kernel_cpu_s",
    "peak_memory_mb",
    "train_examples_per_second",
}


def _outputs(notebook: dict) -> list:
    """Each cell's outputs, the trainer's timing figures left out."""
    cells = []
    for cell in notebook["cells"]:
        outputs = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                output = {**output, "text": TIMINGS.sub(r"'\1'", "".join(output["text"]))}
            outputs.append(output)
        cells.append(outputs)
    return cells


@pytest.mark.slow
def test_a_run_on_a_forked_kernel_matches_one_on_a_fresh_kernel(kluebook, new_book, tmp_path):
    made = {}
    for way, switch in (("warm", "1"), ("fresh", "0")):
        root = new_book(tmp_path / way)
        result = kluebook(
            root,
            "run",
            "--tasks",
            "nli",
            "--seeds",
            "1",
            "--quiet",
            env={warm_kernels.SWITCH: switch},
        )
        assert result.returncode == 0, result.stderr
        (record,) = (root / "results" / "smoke" / "nli").glob("*seed1.json")
        made[way] = (
            {k: v for k, v in json.loads(record.read_text()).items() if k not in MEASURED},
            _outputs(json.loads(record.with_suffix(".ipynb").read_text())),
            record.with_suffix(".predictions.jsonl").read_bytes(),
        )
    assert made["warm"] == made["fresh"]
