"""Whether two builds of one commit give the same smoke records, bit for bit.

    python benchmarks/identical_builds.py [--repo .] [--tasks ynat,re] [--set train_limit=200]
                                          [--threads 1] [--dask] [--keep]

It clones the repository (its committed state) twice, at two different paths, removes the
committed smoke records and run pages from each clone, and runs the smoke matrix in each from
scratch (no cache: each clone builds its own data and stand-in models), with this interpreter's
environment and the clone's src/ first on PYTHONPATH:

- build 1: PYTHONHASHSEED=1, `kluebook run --jobs 1`;
- build 2: PYTHONHASHSEED=2, `kluebook run --jobs 2`; both give every kernel one CPU thread, or
  with `--threads N` N threads (CPU float sums depend on how many threads share them, so builds
  with different thread counts may differ in the last digits);
- with --dask, build 3: PYTHONHASHSEED=3, `kluebook run --executor dask` on a Dask LocalCluster
  of two one-thread workers on 127.0.0.1.

Then it compares builds 2 and 3 with build 1: every record field but the measurements of the
run itself (times, memory, host, threads), every predictions file byte for byte, and every file
of the cached stand-in models byte for byte. It prints what it compared and every difference,
and exits 1 if there is one.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Record fields that measure the run rather than say what it computed.
MEASUREMENTS = {
    "started_at",
    "finished_at",
    "wall_time_s",
    "notebook_wall_time_s",
    "kernel_cpu_s",
    "train_examples_per_second",
    "answering_wall_time_s",
    "answering_tokens_per_second",
    "peak_memory_mb",
    "peak_gpu_memory_mb",
    "host",
    "device",  # names the thread count, which --threads changes
    "kernel_environment",  # the threads of the kernel, which --threads changes
}
CLUSTER = """
import sys, time
from distributed import LocalCluster
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                       dashboard_address=None)
open(sys.argv[1], "w").write(cluster.scheduler_address)
while True:
    time.sleep(1)
"""


def clone_at(repo: Path, folder: Path) -> Path:
    """A clone of `repo`'s committed state at `folder`, without smoke records or run pages."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "--quiet", str(repo), str(folder)], check=True)
    for built in ("results/smoke", "book/runs", ".cache"):
        shutil.rmtree(folder / built, ignore_errors=True)
    return folder


def environment(clone: Path, hash_seed: str) -> dict:
    env = {**os.environ, "KLUEBOOK_ROOT": str(clone), "PYTHONHASHSEED": hash_seed}
    env.pop("KLUEBOOK_CACHE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(clone / "src"), env.get("PYTHONPATH")]))
    return env


def build(clone: Path, hash_seed: str, options: list[str], run_args: list[str]) -> float:
    """`kluebook run` of the smoke matrix in `clone`; its wall time."""
    command = [sys.executable, "-c", "from kluebook.cli.app import main; main()", "run"]
    command += ["--profile", "smoke", "--quiet", *run_args, *options]
    start = time.perf_counter()
    result = subprocess.run(
        command, cwd=clone, env=environment(clone, hash_seed), capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"build in {clone} failed:\n{(result.stdout + result.stderr)[-3000:]}")
    return elapsed


def dask_build(clone: Path, hash_seed: str, run_args: list[str]) -> float:
    """The same build sent to a LocalCluster started with the clone's environment."""
    env = environment(clone, hash_seed)
    address_file = clone.parent / "scheduler-address"
    cluster = subprocess.Popen(
        [sys.executable, "-c", CLUSTER, str(address_file)],
        cwd=clone,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not address_file.exists() or not address_file.read_text():
            if time.monotonic() > deadline or cluster.poll() is not None:
                sys.exit("the Dask LocalCluster did not start")
            time.sleep(0.5)
        address = address_file.read_text()
        return build(clone, hash_seed, ["--executor", "dask", "--scheduler", address], run_args)
    finally:
        os.killpg(cluster.pid, signal.SIGTERM)
        cluster.wait(timeout=60)


def records(clone: Path) -> dict[str, dict]:
    return {
        path.relative_to(clone).as_posix(): json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((clone / "results" / "smoke").glob("*/*.json"))
    }


def model_files(clone: Path) -> dict[str, bytes]:
    models = clone / ".cache" / "models"
    return {
        path.relative_to(models).as_posix(): path.read_bytes()
        for path in sorted(models.rglob("*"))
        if path.is_file()
    }


def differences(reference: Path, other: Path) -> tuple[list[str], dict[str, int]]:
    """What differs between two builds, and how many things of each kind were compared."""
    found: list[str] = []
    expected, got = records(reference), records(other)
    for name in sorted(set(expected) ^ set(got)):
        found.append(f"{name}: in one build only")
    compared = {"records": 0, "record fields": 0, "predictions files": 0, "model files": 0}
    for name in sorted(set(expected) & set(got)):
        first, second = expected[name], got[name]
        compared["records"] += 1
        if first.get("status") != "succeeded" or second.get("status") != "succeeded":
            found.append(f"{name}: status {first.get('status')} / {second.get('status')}")
        for key in sorted((set(first) | set(second)) - MEASUREMENTS):
            compared["record fields"] += 1
            if first.get(key) != second.get(key):
                found.append(f"{name}: {key} {first.get(key)!r} / {second.get(key)!r}")
        if first.get("predictions"):
            compared["predictions files"] += 1
            left = (reference / first["predictions"]).read_bytes()
            right = (other / first["predictions"]).read_bytes()
            if left != right:
                found.append(f"{first['predictions']}: differs")
    left_models, right_models = model_files(reference), model_files(other)
    for name in sorted(set(left_models) | set(right_models)):
        compared["model files"] += 1
        if left_models.get(name) != right_models.get(name):
            found.append(f".cache/models/{name}: differs")
    return found, compared


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", type=Path, default=ROOT, help="repository to clone")
    parser.add_argument("--tasks", help="tasks to run (default: every task of the smoke matrix)")
    parser.add_argument("--set", action="append", default=[], help="a run parameter, NAME=VALUE")
    parser.add_argument(
        "--threads",
        type=int,
        help="CPU threads per kernel in both local builds (default: kluebook's, one)",
    )
    parser.add_argument("--dask", action="store_true", help="also a build on a Dask LocalCluster")
    parser.add_argument("--keep", action="store_true", help="keep the clones")
    args = parser.parse_args()
    run_args = ["--tasks", args.tasks] if args.tasks else []
    threads = ["--threads", str(args.threads)] if args.threads else []
    for setting in args.set:
        run_args += ["--set", setting]

    scratch = Path(tempfile.mkdtemp(prefix="kluebook-identical-"))
    first = clone_at(args.repo, scratch / "one" / "kluebook")
    builds = [
        (
            first,
            "PYTHONHASHSEED=1, --jobs 1",
            build(first, "1", ["--jobs", "1", *threads], run_args),
        )
    ]
    second = clone_at(args.repo, scratch / "two" / "a" / "deeper" / "clone")
    builds.append(
        (
            second,
            "PYTHONHASHSEED=2, --jobs 2",
            build(second, "2", ["--jobs", "2", *threads], run_args),
        )
    )
    if args.dask:
        third = clone_at(args.repo, scratch / "three" / "kb")
        builds.append(
            (third, "PYTHONHASHSEED=3, Dask LocalCluster", dask_build(third, "3", run_args))
        )
    for index, (clone, how, elapsed) in enumerate(builds, 1):
        print(f"build {index}: {clone.relative_to(scratch)} ({how}): {elapsed:.0f} s")
    print(f"not compared (measurements of the run): {', '.join(sorted(MEASUREMENTS))}")
    failed = False
    for index, (clone, _, _) in enumerate(builds[1:], 2):
        found, compared = differences(first, clone)
        counts = ", ".join(f"{n} {what}" for what, n in compared.items())
        print(f"build {index} against build 1: compared {counts}")
        print(f"  {len(found)} difference(s)" if found else "  identical")
        for line in found:
            print(f"  {line}")
        failed = failed or bool(found) or not compared["records"]
    if args.keep:
        print(f"clones kept in {scratch}")
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
