"""How long the smoke book takes from a fresh clone: install, runs, site build, no-change rebuild,
and each task's run time and smoke score against its floor.

    python benchmarks/book_build.py [--repo .] [--jobs 2] [--install] [--workdir DIR]

It clones the repository (its committed state) into a scratch folder, then times what
`make book` does there: `kluebook book --jobs N --quiet` (every smoke run of configs/smoke.yaml,
the generated pages, the site), then the same command again with nothing changed. By default the
clone runs with this interpreter's environment (PYTHONPATH set to the clone's src/), so the
install is not timed; --install times `make` creating the clone's own .venv first (minutes, and
it needs the package index or a wheel cache). --workdir reuses a clone already there.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kluebook.tasks import get_task

ROOT = Path(__file__).resolve().parents[1]


def timed(command: list[str], cwd: Path, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, result


def smoke_records(clone: Path) -> dict[str, list[dict]]:
    """The succeeded smoke run records, per task."""
    records: dict[str, list[dict]] = {}
    for path in sorted((clone / "results" / "smoke").glob("*/*.json")):
        record = json.loads(path.read_text())
        if record.get("status") == "succeeded":
            records.setdefault(record["task"], []).append(record)
    return records


def floor_scores(task: str, records: list[dict]) -> str:
    """Each seed's score on the task's smoke-floor metric, and the floor."""
    floor = get_task(task).smoke_floor
    scores = " / ".join(f"{r['metrics'][floor['metric']]:.1f}" for r in records)
    return f"{floor['metric']} {scores} (floor {floor['value']:g})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", type=Path, default=ROOT, help="repository to clone")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (make book: 2)")
    parser.add_argument("--install", action="store_true", help="time creating the clone's .venv")
    parser.add_argument("--workdir", type=Path, help="an existing clone to use instead")
    parser.add_argument("--keep", action="store_true", help="keep the scratch clone")
    args = parser.parse_args()

    scratch = None
    if args.workdir:
        clone = args.workdir.resolve()
    else:
        scratch = Path(tempfile.mkdtemp(prefix="kluebook-book-bench-"))
        clone = scratch / "kluebook"
        subprocess.run(["git", "clone", "--quiet", str(args.repo), str(clone)], check=True)
    env = {**os.environ, "KLUEBOOK_ROOT": str(clone)}
    env.pop("KLUEBOOK_CACHE", None)
    if args.install:
        install_s, result = timed(["make", ".venv/.installed"], clone, env)
        if result.returncode != 0:
            sys.exit(f"install failed:\n{result.stderr[-3000:]}")
        python = str(clone / ".venv" / "bin" / "python")
        install = f"{install_s:.0f} s (make .venv/.installed)"
    else:
        python = sys.executable
        paths = [str(clone / "src"), env.get("PYTHONPATH")]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
        install = "not timed (this environment reused; --install to time it)"
    command = [python, "-c", "from kluebook.cli import main; main()", "book"]
    command += ["--jobs", str(args.jobs), "--quiet"]

    first_s, first = timed(command, clone, env)
    phases = re.search(r"runs ([\d.]+) s, pages ([\d.]+) s, site ([\d.]+) s", first.stdout)
    second_s, second = timed(command, clone, env)
    summary = re.search(r"\d+ succeeded, \d+ skipped \(up to date\), \d+ failed", first.stdout)

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {cpus} cores, load average {load:.1f} at the end (others' work included)")
    print(f"install:               {install}")
    print(
        f"book from scratch:     {first_s:6.0f} s  (exit {first.returncode}; "
        f"{summary.group(0) if summary else 'no run summary'})"
    )
    if phases:
        runs, pages, site = (float(x) for x in phases.groups())
        print(f"  runs:                {runs:6.0f} s  ({args.jobs} at once)")
        print(f"  pages:               {pages:6.0f} s")
        print(f"  site build:          {site:6.0f} s")
    share = second_s / first_s
    print(
        f"rebuild, no change:    {second_s:6.1f} s  ({share:.1%} of the first build; "
        f"exit {second.returncode})"
    )
    print(
        "per task, mean over seeds (s): run wall time, notebook wall time, kernel CPU time; "
        "then each seed's score"
    )
    total_cpu = 0.0
    for task, records in smoke_records(clone).items():
        wall, notebook, cpu = (
            statistics.mean(r.get(key, float("nan")) for r in records)
            for key in ("wall_time_s", "notebook_wall_time_s", "kernel_cpu_s")
        )
        total_cpu += sum(r.get("kernel_cpu_s", 0.0) for r in records)
        print(f"  {task:5} {wall:6.1f} {notebook:6.1f} {cpu:6.1f}   {floor_scores(task, records)}")
    print(f"  all runs: {total_cpu:.0f} CPU s in kernels, {total_cpu / cpus:.0f} s on {cpus} cores")
    if first.returncode != 0:
        print("first build output (tail):\n" + (first.stdout + first.stderr)[-3000:])
    if scratch and not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    elif scratch:
        print(f"clone kept in {clone}")


if __name__ == "__main__":
    main()
