"""How long, and how much memory, a board of submissions takes to check, score and render: 50
submissions x 5 tasks at KLUE's dev sizes by default, from scratch, after adding one
submission, and once more unchanged.

    KLUEBOOK_DATA_DIR=path/to/klue_benchmark python benchmarks/board_scale.py \
        [--submissions 50] [--tasks ynat,sts,nli,ner,dp] [--generated] [--no-render]

The predictions are generated: each submission is the gold of every dev item, but for its own
share of the items (every `WRONG_EVERY`th one, from an offset of its own), which get another
item's label or score, all-O tags or next-eojeol heads. They are made against the real dev
files of KLUEBOOK_DATA_DIR where they are there, else (or with `--generated`) against dev
files generated at the real sizes (`DEV_SIZES`; `--dev-size` cuts them, for a quick test).

Each step runs in a fresh interpreter, which reports its wall time, its CPU time (user and
system, imports and start-up included: the figure to compare on a shared machine) and its peak
resident memory (ru_maxrss): `check` runs `kluebook submissions check`'s code on every
submission; `score` loads the board (`kluebook.submissions.board.load_board`: checks, then
rescores what changed, writing the records); `render` writes the book's generated pages
(`kluebook report`'s `write_generated`) in a scratch book root holding the board. Then one
submission is added and the three steps run again (check on the new one only): the board must
rescore that one only. A last `score` on the unchanged board must rescore none, and a last
`render` draws it again. Each `render` names the largest files it wrote (the generated pages'
Markdown, before Sphinx), with their sizes. `idle` is an interpreter that only imports the
board's code, for the memory every step starts from.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# KLUE v1.1's dev sizes: headlines, sentence pairs, sentence pairs, sentences, sentences.
DEV_SIZES = {"ynat": 9107, "sts": 519, "nli": 3000, "ner": 5000, "dp": 2000}
WRONG_EVERY = 7
LARGEST = 3  # the generated pages a render step names, with their sizes


def noisy(rows: list[dict], offset: int) -> list[dict]:
    """The gold lines, every `WRONG_EVERY`th one (from `offset`) made wrong but valid."""
    out = [dict(row) for row in rows]
    for i in range(offset % WRONG_EVERY, len(out), WRONG_EVERY):
        row, other = out[i], rows[(i + 1) % len(rows)]
        if "label" in row:
            row["label"] = other["label"]
        if "score" in row:
            row["score"] = other["score"]
        if "tags" in row:
            row["tags"] = ["O"] * len(row["tags"])
        if "heads" in row:
            size = len(row["heads"])
            row["heads"] = [j + 2 if j + 1 < size else 0 for j in range(size)]
    return out


METADATA = """\
model: Board scale {index}
link: https://example.org/board-scale/{index}
parameters: {index}
method: other
training_data: none (generated predictions)
dev_data_used: true
tool: benchmarks/board_scale.py
tool_version: '1'
predictions_license: CC0-1.0
date: 2026-12-07
"""


def dev_files(
    tasks: list[str], generated: bool, dev_size: int | None, scratch: Path
) -> tuple[Path, list[str]]:
    """The data folder, the real one where it has every task's dev file, else generated (only
    the tasks whose dev file is JSON: a reduced copy of a TSV file has no name of its own); and
    the tasks it serves."""
    from kluebook.common.errors import KluebookError
    from kluebook.common.paths import KLUE_DATA
    from kluebook.submissions.check import gold_file
    from kluebook.tasks import get_task, task_module

    if not generated:
        try:
            for name in tasks:
                gold_file(get_task(name), KLUE_DATA)
            return KLUE_DATA, tasks
        except KluebookError as error:
            print(f"real dev files: {error}; generated ones instead")
    folder, kept = scratch / "data", []
    for name in tasks:
        task = get_task(name)
        path = folder / task.files["dev"].replace(".json", ".partial.json")
        if path == folder / task.files["dev"]:
            print(f"{name}: its dev file is not JSON: no generated copy, left out")
            continue
        size = dev_size or DEV_SIZES[name]
        records = task_module(task).generate(seed=0, train_size=8, dev_size=size)["dev"]
        path.parent.mkdir(parents=True, exist_ok=True)
        task_module(task).write_official(records, path)
        kept.append(name)
    return folder, kept


def write_submission(board: Path, index: int, tasks: list[str], data_dir: Path) -> None:
    from kluebook.submissions.check import gold_file
    from kluebook.tasks import get_task, task_module

    folder = board / f"board-scale-{index:03d}"
    folder.mkdir(parents=True)
    (folder / "submission.yaml").write_text(METADATA.format(index=index), encoding="utf-8")
    for name in tasks:
        task = get_task(name)
        module = task_module(task)
        rows = module.gold_predictions(module.read_official(gold_file(task, data_dir).path), {})
        lines = noisy(rows, index)
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in lines)
        (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")


# Each step, run in a fresh interpreter (`--step`): what it does, and what it prints.
def run_step(step: str, board: Path, data_dir: Path, slugs: list[str]) -> dict:
    started = time.perf_counter()
    found: dict = {}
    if step == "check":
        from kluebook.submissions.check import check_submission

        problems = [
            p for slug in slugs for p in check_submission(board / slug, data_dir).all_problems
        ]
        found = {"checked": len(slugs), "problems": len(problems)}
    elif step == "score":
        from kluebook.submissions.board import load_board

        loaded = load_board(board, data_dir)
        found = {
            "entries": len(loaded.entries),
            "rescored": sum(1 for e in loaded.entries if e.rescored),
            "tasks_rescored": sum(len(e.rescored) for e in loaded.entries),
            "refused": len(loaded.refused),
        }
    elif step == "render":
        from kluebook.book.report import write_generated

        pages = write_generated()
        largest = sorted(pages, key=lambda page: page.stat().st_size)[-LARGEST:]
        found = {
            "pages": len(pages),
            "largest": ", ".join(f"{p.name} {p.stat().st_size / 2**20:.2f} MB" for p in largest),
        }
    elif step == "idle":
        import kluebook.submissions.board  # noqa: F401
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        **found,
        "seconds": time.perf_counter() - started,
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_mib": usage.ru_maxrss / 1024,
    }


def step(name: str, board: Path, data_dir: Path, book: Path, slugs: list[str]) -> dict:
    """`name` in a fresh interpreter against `book` (a scratch book root): its figures."""
    env = {**os.environ, "KLUEBOOK_ROOT": str(book), "KLUEBOOK_DATA_DIR": str(data_dir)}
    args = [sys.executable, __file__, "--step", name, "--board", str(board), *slugs]
    done = subprocess.run(args, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"step {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def show(label: str, figures: dict) -> None:
    shown = ("seconds", "cpu_s", "peak_mib")
    extra = ", ".join(f"{k} {v}" for k, v in figures.items() if k not in shown)
    print(
        f"{label:<24} {figures['seconds']:8.2f} s  cpu {figures['cpu_s']:8.2f} s  "
        f"peak {figures['peak_mib']:7.1f} MiB" + (f"  ({extra})" if extra else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=50)
    parser.add_argument("--tasks", default=",".join(DEV_SIZES))
    parser.add_argument("--generated", action="store_true", help="generated dev files")
    parser.add_argument("--dev-size", type=int, help="generated dev files of this size")
    parser.add_argument("--no-render", action="store_true", help="skip the render steps")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--board", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("slugs", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        from kluebook.common.paths import KLUE_DATA

        figures = run_step(args.step, args.board, KLUE_DATA, args.slugs)
        print(json.dumps(figures))
        return
    from kluebook.book.build import copy_sources
    from kluebook.submissions.check import gold_file
    from kluebook.tasks import get_task, task_module

    tasks = args.tasks.split(",")
    with tempfile.TemporaryDirectory(prefix="board-scale-") as scratch:
        scratch = Path(scratch)
        data_dir, tasks = dev_files(tasks, args.generated, args.dev_size, scratch)
        (scratch / "book").mkdir()
        book = copy_sources(scratch / "book")
        board = book / "submissions"
        shutil.rmtree(board)
        for index in range(args.submissions):
            write_submission(board, index, tasks, data_dir)
        slugs = sorted(p.name for p in board.iterdir())
        kind = "generated" if data_dir == scratch / "data" else "real"
        sizes = {}
        for name in tasks:
            task = get_task(name)
            sizes[name] = len(task_module(task).read_official(gold_file(task, data_dir).path))
        print(
            f"board: {args.submissions} submissions x {len(tasks)} tasks, {kind} dev files "
            f"({', '.join(f'{t} {n}' for t, n in sizes.items())} items); "
            f"python {sys.version.split()[0]}, {os.cpu_count()} cores"
        )
        show("idle (imports only)", step("idle", board, data_dir, book, []))
        show("check, from scratch", step("check", board, data_dir, book, slugs))
        scored = step("score", board, data_dir, book, [])
        show("score, from scratch", scored)
        if not args.no_render:
            show("render, from scratch", step("render", board, data_dir, book, []))
        write_submission(board, args.submissions, tasks, data_dir)
        added = f"board-scale-{args.submissions:03d}"
        show("check, one added", step("check", board, data_dir, book, [added]))
        incremental = step("score", board, data_dir, book, [])
        show("score, one added", incremental)
        if not args.no_render:
            show("render, one added", step("render", board, data_dir, book, []))
        unchanged = step("score", board, data_dir, book, [])
        show("score, unchanged", unchanged)
        if not args.no_render:
            show("render, unchanged", step("render", board, data_dir, book, []))
        print(
            f"rescored: {scored['rescored']} from scratch, {incremental['rescored']} after "
            f"adding one, {unchanged['rescored']} unchanged"
        )


if __name__ == "__main__":
    main()
