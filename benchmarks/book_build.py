"""How long the smoke book takes from a fresh clone: install, runs, site build, no-change rebuild,
and each task's run time and smoke score against its floor; with --against, the same for another
commit first, one after the other on this machine, and the ratio of the two.

    python benchmarks/book_build.py [--repo .] [--jobs 2] [--install] [--workdir DIR]
    python benchmarks/book_build.py --against 53c4b11 [--jobs 2] [--tasks wos,ynat]

It clones the repository (its committed state, HEAD) into a scratch folder, then times what
`make book` does there: `kluebook book --jobs N --quiet` (every smoke run of configs/smoke.yaml
and the smoke book's prompted runs, the generated pages, the site), then the same command again
with nothing changed. By default the clone runs with this interpreter's environment (PYTHONPATH
set to the clone's src/), so the install is not timed; --install times `make` creating the
clone's own .venv first (minutes, and it needs the package index or a wheel cache). --workdir
reuses a clone already there.

--against COMMIT builds that commit first, in a clone of its own (its own results/ and .cache/,
so nothing is shared), then HEAD, and prints both figures and HEAD's share of the commit's. Wall
time depends on what else the machine runs; the CPU seconds (of the whole build: every process it
started, kernels and the site build included; and of the kernels alone, from the run records:
a kernel forked by `kluebook.running.warm_kernels` counts from its fork, its imports were made once
by the server, which the whole build's CPU includes)
depend on it much less, so both are printed. --tasks builds the book with those tasks' runs only
(the site still has every page), for a quicker comparison of what changed in them.
"""

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from kluebook.tasks import get_task

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Build:
    """One clone's figures: the first build from scratch and the no-change rebuild."""

    label: str
    first_s: float
    first_cpu_s: float  # CPU of every process the build started and waited for
    second_s: float
    exit_codes: tuple[int, int]
    summary: str
    phases: tuple[float, float, float] | None  # runs, pages, site (s), as `kluebook book` prints
    records: dict[str, list[dict]] = field(default_factory=dict)
    output_tail: str = ""

    @property
    def kernel_cpu_s(self) -> float:
        return sum(r.get("kernel_cpu_s") or 0.0 for rs in self.records.values() for r in rs)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(
    command: list[str], cwd: Path, env: dict
) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds, CPU seconds of the process and its descendants, and the result."""
    start, cpu = time.perf_counter(), children_cpu()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, children_cpu() - cpu, result


def smoke_records(clone: Path) -> dict[str, list[dict]]:
    """The succeeded smoke run records, per task, a task's prompted runs apart (`nli prompted`)."""
    records: dict[str, list[dict]] = {}
    for path in sorted((clone / "results" / "smoke").glob("*/*.json")):
        record = json.loads(path.read_text())
        if record.get("status") == "succeeded":
            prompted = " prompted" if record.get("method") == "prompted" else ""
            records.setdefault(record["task"] + prompted, []).append(record)
    return records


def floor_scores(task: str, records: list[dict]) -> str:
    """Each seed's score on the task's smoke-floor metric, and the floor (which fine-tuned runs
    must pass; a prompted run of the tiny random causal LM has none: its runs are only counted)."""
    name, _, prompted = task.partition(" ")
    if prompted:
        return f"{len(records)} runs (prompted: shots, templates and seeds)"
    floor = get_task(name).smoke_floor
    scores = " / ".join(f"{r['metrics'][floor.metric]:.1f}" for r in records)
    return f"{floor.metric} {scores} (floor {floor.value:g})"


def clone_at(repo: Path, dest: Path, commit: str | None = None) -> Path:
    subprocess.run(["git", "clone", "--quiet", str(repo), str(dest)], check=True)
    if commit:
        subprocess.run(["git", "-C", str(dest), "checkout", "--quiet", commit], check=True)
    return dest


def build_book(
    clone: Path, label: str, jobs: int, install: bool, tasks: str | None = None
) -> tuple[Build, str]:
    """`kluebook book` twice in `clone` (from scratch, then with nothing changed)."""
    env = {**os.environ, "KLUEBOOK_ROOT": str(clone)}
    env.pop("KLUEBOOK_CACHE", None)
    if install:
        install_s, _, result = timed(["make", ".venv/.installed"], clone, env)
        if result.returncode != 0:
            sys.exit(f"install failed:\n{result.stderr[-3000:]}")
        python = str(clone / ".venv" / "bin" / "python")
        installed = f"{install_s:.0f} s (make .venv/.installed)"
    else:
        python = sys.executable
        paths = [str(clone / "src"), env.get("PYTHONPATH")]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
        installed = "not timed (this environment reused; --install to time it)"
    command = [python, "-c", "from kluebook.cli.app import main; main()", "book"]
    command += ["--jobs", str(jobs), "--quiet", *(["--tasks", tasks] if tasks else [])]

    first_s, first_cpu, first = timed(command, clone, env)
    second_s, _, second = timed(command, clone, env)
    phases = re.search(r"runs ([\d.]+) s, pages ([\d.]+) s, site ([\d.]+) s", first.stdout)
    summary = re.search(r"\d+ succeeded, \d+ skipped \(up to date\), \d+ failed", first.stdout)
    build = Build(
        label=label,
        first_s=first_s,
        first_cpu_s=first_cpu,
        second_s=second_s,
        exit_codes=(first.returncode, second.returncode),
        summary=summary.group(0) if summary else "no run summary",
        phases=tuple(float(x) for x in phases.groups()) if phases else None,
        records=smoke_records(clone),
        output_tail="" if first.returncode == 0 else (first.stdout + first.stderr)[-3000:],
    )
    return build, installed


def report(build: Build, jobs: int, cpus: int) -> None:
    print(f"== {build.label}")
    print(
        f"book from scratch:     {build.first_s:6.0f} s, {build.first_cpu_s:4.0f} CPU s  "
        f"(exit {build.exit_codes[0]}; {build.summary})"
    )
    if build.phases:
        runs, pages, site = build.phases
        print(f"  runs:                {runs:6.0f} s  ({jobs} at once)")
        print(f"  pages:               {pages:6.0f} s")
        print(f"  site build:          {site:6.0f} s")
    print(
        f"rebuild, no change:    {build.second_s:6.1f} s  "
        f"({build.second_s / build.first_s:.1%} of the first build; exit {build.exit_codes[1]})"
    )
    print(
        "per task, mean over seeds (s): run wall time, notebook wall time, kernel CPU time; "
        "then each seed's score"
    )
    for task, records in build.records.items():
        wall, notebook, cpu = (
            statistics.mean(r.get(key) or float("nan") for r in records)
            for key in ("wall_time_s", "notebook_wall_time_s", "kernel_cpu_s")
        )
        print(f"  {task:14} {wall:6.1f} {notebook:6.1f} {cpu:6.1f}   {floor_scores(task, records)}")
    total = build.kernel_cpu_s
    print(f"  all runs: {total:.0f} CPU s in kernels, {total / cpus:.0f} s on {cpus} cores")
    if build.output_tail:
        print("first build output (tail):\n" + build.output_tail)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", type=Path, default=ROOT, help="repository to clone")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (make book: 2)")
    parser.add_argument("--install", action="store_true", help="time creating the clone's .venv")
    parser.add_argument("--workdir", type=Path, help="an existing clone to use instead")
    parser.add_argument("--against", metavar="COMMIT", help="build this commit first, compare")
    parser.add_argument("--tasks", help="only these tasks' runs (default: the whole smoke book)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch clones")
    args = parser.parse_args()
    if args.against and args.workdir:
        parser.error("--against builds fresh clones; it does not take --workdir")

    scratch = Path(tempfile.mkdtemp(prefix="kluebook-book-bench-"))
    head = subprocess.run(
        ["git", "-C", str(args.repo), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    builds = []
    if args.against:
        clone = clone_at(args.repo, scratch / "against" / "kluebook", args.against)
        label = f"{args.against} (--against)"
        builds.append(build_book(clone, label, args.jobs, args.install, args.tasks))
    clone = args.workdir.resolve() if args.workdir else clone_at(args.repo, scratch / "kluebook")
    label = f"{head or 'HEAD'} (HEAD)"
    builds.append(build_book(clone, label, args.jobs, args.install, args.tasks))

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {cpus} cores, load average {load:.1f} at the end (others' work included)")
    print(f"install:               {builds[-1][1]}")
    for build, _ in builds:
        report(build, args.jobs, cpus)
    if args.against:
        (before, _), (after, _) = builds
        print(f"== {after.label} against {before.label}")
        for name, new, old in (
            ("book from scratch, wall", after.first_s, before.first_s),
            ("book from scratch, CPU", after.first_cpu_s, before.first_cpu_s),
            ("kernels, CPU", after.kernel_cpu_s, before.kernel_cpu_s),
        ):
            print(f"  {name:26} {new:6.0f} s / {old:6.0f} s = {new / old:.0%}")
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        print(f"clones kept in {scratch}")


if __name__ == "__main__":
    main()
