"""How many of many kernels started through the warm-kernel server fail to start.

    python benchmarks/kernel_starts.py [--kernels 200] [--at-once 4] [--tcp]

It starts `--kernels` kernels, `--at-once` at a time (each from a thread of its own, as a
sweep's `--jobs` starts them), the way a run starts its kernel (`kluebook.running.kernels`, one
CPU thread, forked by the warm-kernel server); each must answer `kernel_info` and compute
`6 * 7`, and is then shut down. It prints how many were forked by the server, how many failed and
why (each distinct reason with its count), how many sockets of the kernels found their address
taken (counted in the kernels' error output, which it holds back: a kernel can lose only its
heartbeat's port and still answer), and the seconds from asking for a kernel to its answer.
`--tcp` gives the kernels TCP ports on localhost as jupyter_client picks them (free ones, freed
again before the kernel binds them) instead of kluebook's sockets without ports, for a
comparison in the same sitting; run two such processes at once to see ports raced for.
"""

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from kluebook.running import kernels, warm_kernels

ENVIRONMENT = kernels.thread_environment(1)


async def _start_and_ask(folder: str) -> tuple[bool, float]:
    """Start a kernel, have it compute 6 * 7, shut it down: (whether it was forked, seconds from
    asking for it to its answer)."""
    started = time.perf_counter()
    manager = kernels.kernel_manager(ENVIRONMENT)
    try:
        await manager.start_kernel(cwd=folder)
        forked = isinstance(manager.provisioner.process, warm_kernels.ForkedKernel)
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=120)
            answer = []
            reply = await client.execute_interactive(
                "6 * 7", timeout=120, output_hook=lambda message: answer.append(message)
            )
            results = [m["content"]["data"]["text/plain"] for m in answer if "data" in m["content"]]
            if reply["content"]["status"] != "ok" or results != ["42"]:
                raise RuntimeError(f"the kernel answered {results or reply['content']['status']}")
            return forked, time.perf_counter() - started
        finally:
            client.stop_channels()
    finally:
        if manager.has_kernel:
            await manager.shutdown_kernel()


def one_kernel(folder: str) -> tuple[bool, float] | str:
    """What `_start_and_ask` gives, or why the kernel failed (its error's first line)."""
    try:
        return asyncio.run(_start_and_ask(folder))
    except Exception as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--at-once", type=int, default=4)
    parser.add_argument("--tcp", action="store_true", help="TCP ports, as jupyter_client picks")
    options = parser.parse_args()
    if options.tcp:
        kernels.connection_settings = dict  # jupyter_client's default: TCP on localhost
    transport = "TCP ports picked by jupyter_client" if options.tcp else "kluebook's (no ports)"
    print(
        f"{options.kernels} kernels, {options.at_once} at a time, through the warm-kernel "
        f"server ({'on' if warm_kernels.can_fork() else 'off: fresh kernels'}), "
        f"sockets: {transport}",
        flush=True,
    )
    began = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="kluebook-kernel-starts-") as folder,
        tempfile.TemporaryFile() as errors,
    ):
        # The kernels (and the server that forks them) write their errors where this process
        # does: into `errors`, while they run.
        sys.stderr.flush()
        stderr = os.dup(2)
        os.dup2(errors.fileno(), 2)
        try:
            with ThreadPoolExecutor(options.at_once) as pool:
                outcomes = list(pool.map(one_kernel, [folder] * options.kernels))
            wall = time.perf_counter() - began
            warm_kernels.stop_servers()
        finally:
            os.dup2(stderr, 2)
            os.close(stderr)
        errors.seek(0)
        taken = errors.read().decode(errors="replace").count("Address already in use")
    answered = [outcome for outcome in outcomes if not isinstance(outcome, str)]
    failures = Counter(outcome for outcome in outcomes if isinstance(outcome, str))
    seconds = sorted(taken for _, taken in answered)
    print(f"started and answered: {len(answered)} ({sum(f for f, _ in answered)} forked)")
    print(f"failed: {sum(failures.values())}")
    for reason, count in failures.most_common():
        print(f"  {count} x {reason}")
    print(f"kernel sockets that found their address taken: {taken}")
    if seconds:
        print(
            f"seconds from asking to the answer: median {statistics.median(seconds):.2f}, "
            f"slowest {seconds[-1]:.2f} (the first kernels wait for the server's imports); "
            f"wall {wall:.1f} s"
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
