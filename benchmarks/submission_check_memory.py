"""Checking a large predictions file does not load it whole: a YNAT predictions file of
`--megabytes` (each dev guid once, a right label, every line padded with a `note` field to the
size asked; the check reads only `guid` and `label`) checked by `kluebook submissions check`'s
code, with the time, the peak of Python's allocations during the check (tracemalloc) and the
process's peak resident memory; beside it, for scale, the peak of reading the same file whole
(`read_jsonl`, what a whole-file reader would hold).

    python benchmarks/submission_check_memory.py [--megabytes 100] [--data-dir DIR]

The dev file: YNAT's in `--data-dir` (default KLUEBOOK_DATA_DIR; the official file or its
reduced copy), else a generated dev set written as a reduced copy in a temporary folder.
"""

import argparse
import json
import os
import resource
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_jsonl
from kluebook.submissions.check import check_submission, gold_file
from kluebook.tasks import get_task, task_module

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


@dataclass(frozen=True)
class Figures:
    file_bytes: int
    items: int
    problems: list[str]
    seconds: float
    check_peak_bytes: int  # Python allocations during the check, at their peak
    check_rss_kib: int  # the process's peak resident memory once checked (imports included)
    whole_peak_bytes: int | None  # the same for reading the file whole (None: not measured)


def dev_folder(data_dir: Path | None, scratch: Path) -> Path:
    """A data folder holding a YNAT dev file: `data_dir`'s, else a generated one."""
    task = get_task("ynat")
    if data_dir is not None:
        try:
            gold_file(task, data_dir)
            return data_dir
        except KluebookError:  # no YNAT dev file there: generate one
            pass
    module = task_module(task)
    path = scratch / "data" / task.files["dev"].replace(".json", ".partial.json")
    path.parent.mkdir(parents=True)
    module.write_official(module.generate(seed=1, **task.smoke_data)["dev"], path)
    return scratch / "data"


def write_padded(folder: Path, data_dir: Path, size: int) -> int:
    """A submission whose ynat.jsonl is each dev guid once, padded to about `size` bytes;
    how many lines it has."""
    task = get_task("ynat")
    module = task_module(task)
    rows = module.gold_predictions(module.read_official(gold_file(task, data_dir).path), {})
    pad = max(0, size // len(rows) - 60)
    folder.mkdir(parents=True)
    (folder / "submission.yaml").write_text(METADATA)
    with open(folder / "ynat.jsonl", "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps({**row, "note": "x" * pad}, ensure_ascii=False) + "\n")
    return len(rows)


def measure(megabytes: float, data_dir: Path | None, whole: bool = True) -> Figures:
    with tempfile.TemporaryDirectory() as scratch:
        data = dev_folder(data_dir, Path(scratch))
        folder = Path(scratch) / "padded"
        items = write_padded(folder, data, int(megabytes * 2**20))
        path = folder / "ynat.jsonl"
        tracemalloc.start()
        started = time.perf_counter()
        report = check_submission(folder, data)
        seconds = time.perf_counter() - started
        check_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        check_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        whole_peak = None
        if whole:
            tracemalloc.start()
            read_jsonl(path)
            whole_peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        return Figures(
            path.stat().st_size,
            items,
            report.all_problems,
            seconds,
            check_peak,
            check_rss,
            whole_peak,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=100)
    parser.add_argument("--data-dir", type=Path, default=os.environ.get("KLUEBOOK_DATA_DIR"))
    arguments = parser.parse_args()
    data_dir = Path(arguments.data_dir) if arguments.data_dir else None
    figures = measure(arguments.megabytes, data_dir)
    mib = 2**20
    print(f"file: ynat.jsonl, {figures.file_bytes / mib:.1f} MiB, {figures.items} lines")
    print(f"check: {len(figures.problems)} problems, {figures.seconds:.2f} s")
    print(f"check's peak of Python allocations: {figures.check_peak_bytes / mib:.1f} MiB")
    print(f"process peak resident memory once checked: {figures.check_rss_kib / 1024:.0f} MiB")
    if figures.whole_peak_bytes is not None:
        print(f"reading it whole (read_jsonl), peak: {figures.whole_peak_bytes / mib:.1f} MiB")
        peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"process peak resident memory once read whole: {peak_rss:.0f} MiB")


if __name__ == "__main__":
    main()
