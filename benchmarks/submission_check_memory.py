"""Checking a large predictions file does not load it whole: for each task asked (YNAT, RE,
MRC and WoS by default), a predictions file of `--megabytes` (each dev key once, the gold
value, every line padded with a `note` field to the size asked; the check reads only the key
and the values) checked by `kluebook submissions check`'s code, with the time, the peak of
Python's allocations during the check (tracemalloc) and the process's peak resident memory
(each task in a fresh process). Beside it, in the same sitting: the same check with the
task's `check_line` taken away, the way RE, MRC and WoS were checked before they had one
(every row kept, then the official scorer judging them), and, for scale, the peak of reading
the file whole (`read_jsonl`).

    python benchmarks/submission_check_memory.py [--megabytes 100] [--tasks ynat,re,mrc,wos]
        [--data-dir DIR]

The dev file: the task's in `--data-dir` (default KLUEBOOK_DATA_DIR; the official file or its
reduced copy), else a generated dev set of about the official dev set's size (`DEV_SIZES`),
written as a reduced copy in a temporary folder.
"""

import argparse
import dataclasses
import json
import multiprocessing
import os
import resource
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl
from kluebook.submissions import check
from kluebook.submissions.check import check_submission, gold_file
from kluebook.tasks import Task, get_task, task_module

METADATA = """\
model: Padded predictions
link: https://example.org/model
parameters: 0
method: other
training_data: none
dev_data_used: false
tool: benchmarks/submission_check_memory.py
tool_version: "1"
predictions_license: CC0-1.0
date: 2026-12-07
"""


TASKS = ("ynat", "re", "mrc", "wos")
# The generator's arguments for a dev set of the official v1.1 size (KLUE paper, Park et al.
# 2021, table 1): YNAT 9,107 headlines, RE 7,765 sentences, MRC 5,841 questions (three per
# generated paragraph), WoS 1,000 dialogues.
DEV_SIZES = {
    "ynat": {"dev_size": 9107},
    "re": {"dev_size": 7765},
    "mrc": {"dev_paragraphs": 1947},
    "wos": {"dev_dialogues": 1000},
}


@dataclass(frozen=True)
class Figures:
    task: str
    file_bytes: int
    items: int
    problems: list[str]
    seconds: float
    check_peak_bytes: int  # Python allocations during the check, at their peak
    check_rss_kib: int  # the process's peak resident memory once checked (imports included)
    whole_peak_bytes: int | None  # the same for reading the file whole (None: not measured)
    kept_peak_bytes: int | None  # the check without check_line, rows kept (None: not measured)
    kept_seconds: float | None


def dev_folder(task: Task, data_dir: Path | None, scratch: Path, official_size: bool) -> Path:
    """A data folder holding the task's dev file: `data_dir`'s, else a generated one (of the
    official dev set's size, else of the smoke size)."""
    if data_dir is not None:
        try:
            gold_file(task, data_dir)
            return data_dir
        except KluebookError:  # no dev file of the task there: generate one
            pass
    module = task_module(task)
    path = scratch / "data" / task.files["dev"].replace(".json", ".partial.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    sizes = {**task.smoke_data, **(DEV_SIZES[task.name] if official_size else {})}
    module.write_official(module.generate(seed=1, **sizes)["dev"], path)
    return scratch / "data"


def write_padded(task: Task, folder: Path, data_dir: Path, size: int) -> int:
    """A submission whose <task>.jsonl is each dev key once, padded to about `size` bytes;
    how many lines it has."""
    module = task_module(task)
    rows = module.gold_predictions(module.read_official(gold_file(task, data_dir).path), {})
    width = max(len(json.dumps(row, ensure_ascii=False)) for row in rows)
    pad = max(0, size // len(rows) - width - 12)
    folder.mkdir(parents=True)
    (folder / "submission.yaml").write_text(METADATA)
    with open(folder / f"{task.name}.jsonl", "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps({**row, "note": "x" * pad}, ensure_ascii=False) + "\n")
    return len(rows)


def peak_of(call) -> tuple[object, float, int]:
    """What `call()` returns, its seconds and its peak of Python allocations."""
    tracemalloc.start()
    started = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, seconds, peak


def check_keeping_rows(task: Task, folder: Path, data_dir: Path):
    """The check as it ran for a task without `check_line` (RE, MRC and WoS before they had
    one): every unique row kept, then the official scorer judging them."""
    plain = dataclasses.replace(task_module(task), check_line=None)
    with mock.patch.object(check, "task_module", lambda _: plain):
        return check_submission(folder, data_dir)


def measure(
    megabytes: float,
    data_dir: Path | None,
    whole: bool = True,
    task_name: str = "ynat",
    kept: bool = True,
    official_size: bool = False,
) -> Figures:
    task = get_task(task_name)
    with tempfile.TemporaryDirectory() as scratch:
        data = dev_folder(task, data_dir, Path(scratch), official_size)
        folder = Path(scratch) / "padded"
        items = write_padded(task, folder, data, int(megabytes * 2**20))
        path = folder / f"{task.name}.jsonl"
        report, seconds, check_peak = peak_of(lambda: check_submission(folder, data))
        check_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        kept_peak = kept_seconds = None
        if kept:
            old, kept_seconds, kept_peak = peak_of(lambda: check_keeping_rows(task, folder, data))
            assert old.all_problems == report.all_problems, old.all_problems
        whole_peak = peak_of(lambda: read_jsonl(path))[2] if whole else None
        return Figures(
            task.name,
            path.stat().st_size,
            items,
            report.all_problems,
            seconds,
            check_peak,
            check_rss,
            whole_peak,
            kept_peak,
            kept_seconds,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=100)
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--data-dir", type=Path, default=os.environ.get("KLUEBOOK_DATA_DIR"))
    arguments = parser.parse_args()
    data_dir = Path(arguments.data_dir) if arguments.data_dir else None
    mib = 2**20
    for name in arguments.tasks.split(","):
        # Each task in a fresh process, so that its resident memory is its own.
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            figures = pool.apply(
                measure,
                (arguments.megabytes, data_dir),
                {"task_name": name, "official_size": True},
            )
        print(f"{name}.jsonl: {figures.file_bytes / mib:.1f} MiB, {figures.items} lines")
        print(f"  check: {len(figures.problems)} problems, {figures.seconds:.2f} s")
        print(f"  check's peak of Python allocations: {figures.check_peak_bytes / mib:.1f} MiB")
        print(
            f"  process peak resident memory once checked: {figures.check_rss_kib / 1024:.0f} MiB"
        )
        print(
            f"  check keeping every row (no check_line), peak: {figures.kept_peak_bytes / mib:.1f}"
            f" MiB, {figures.kept_seconds:.2f} s"
        )
        print(f"  reading it whole (read_jsonl), peak: {figures.whole_peak_bytes / mib:.1f} MiB")


if __name__ == "__main__":
    main()
