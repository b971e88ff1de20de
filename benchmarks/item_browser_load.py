"""How long a paper run's item browser takes to load: KLUE's dev sizes (9,107 YNAT headlines,
5,841 MRC questions), generated, in the table a run page shows, opened in headless Chromium; and
a task page's side-by-side view of four such YNAT runs.

    python benchmarks/item_browser_load.py [--chromium /usr/bin/chromium] [--repeats 3]

For each task it generates a dev split of that size (the smoke generators, seed 0), predictions
that are the gold but for every seventh item, and renders them with the run pages' item browser
(`kluebook.book.item_browser`) into a page of a scratch site laid out like the book's (DataTables'
bundle and the address script in `_static/`). The site is served over HTTP on the loopback
address; each load opens the page in a fresh browser page and times it from the navigation to
the table's first page drawn by DataTables (its rows in the page, its item count shown). It
prints the page's size, each load's time and the median; #38 asks for 2 s or less. The
side-by-side page (`kluebook.book.side_by_side`) holds `SIDE_BY_SIDE_RUNS` YNAT runs, each wrong
on its own seventh of the items; its load is timed to the first pair's list drawn, and a new
pick (runs 3 and 4, chosen as a reader does) to the new list drawn.

The generated MRC passages are shorter than KLUE's (about 150 characters against about 1,000),
but the table shows at most `TEXT_LIMIT` characters of a text, so its data is of a real page's
size to within that cut.
"""

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import accessibility  # noqa: E402 (the served site, as the browser test serves it)

# The dev sets of KLUE v1.1: the YNAT headlines and the MRC questions.
SIZES = {"ynat": {"dev_size": 9107}, "mrc": {"dev_paragraphs": 1947}}  # 3 questions each
WRONG_EVERY = 7
SIDE_BY_SIDE_RUNS = 4


def predictions(task, records: list[dict], offset: int = 0) -> list[dict]:
    """The gold as predictions, every `WRONG_EVERY`th one (from `offset`) changed to another
    item's answer."""
    from kluebook.tasks import task_module

    lines = task_module(task).gold_predictions(records, {})
    for i in range(offset, len(lines), WRONG_EVERY):
        other = lines[(i + 1) % len(lines)]
        lines[i] = {**other, "guid": lines[i]["guid"]}
    return lines


def write_site(folder: Path) -> dict[str, tuple[str, int]]:
    """A scratch site with one item browser page per task: each page's path and item count."""
    from itables.utils import find_package_file

    from kluebook.book.item_browser import browser_html
    from kluebook.results.items import items_frame
    from kluebook.tasks import get_task, task_module

    static = folder / "_static" / "itables"
    static.mkdir(parents=True)
    for name in ("dt_bundle.js", "dt_bundle.css"):
        shutil.copyfile(find_package_file(f"html/{name}"), static / name)
    shutil.copyfile(
        ROOT / "book" / "_static" / "kluebook-items.js", static.parent / "kluebook-items.js"
    )
    pages = {}
    for name, size in SIZES.items():
        task = get_task(name)
        generated = task_module(task).generate(seed=0, **size)["dev"]
        official = folder / "data" / task.files["dev"]
        task_module(task).write_official(generated, official)
        records = task_module(task).read_official(official)
        frame = items_frame(task, predictions(task, records), records)
        docname = f"book/runs/{name}/paper-benchmark-seed1"
        table = browser_html(frame, "items", docname, f"The {len(frame):,} dev items")
        page = folder / f"{docname}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{name} items</title></head><body><main>{table}</main></body></html>\n",
            encoding="utf-8",
        )
        pages[name] = (f"{docname}.html", len(frame))
        if name == "ynat":
            pages["ynat side by side"] = write_side_by_side(folder, task, records)
    return pages


def write_side_by_side(folder: Path, task, records: list[dict]) -> tuple[str, int]:
    """A task page with the side-by-side view of `SIDE_BY_SIDE_RUNS` runs on `records`."""
    from kluebook.book.side_by_side import SCRIPT, DevSetRuns, OfferedRun, view_html
    from kluebook.results.agreement import RunAnswers, dev_set_agreement
    from kluebook.scoring.predictions import index_predictions

    shutil.copyfile(ROOT / "book" / SCRIPT, folder / SCRIPT)
    answers = [
        RunAnswers(index_predictions(task, records, predictions(task, records, n)), {})
        for n in range(SIDE_BY_SIDE_RUNS)
    ]
    docname = f"book/_generated/tasks/{task.name}"
    runs = [OfferedRun(f"run {n + 1}", None) for n in range(SIDE_BY_SIDE_RUNS)]
    view = DevSetRuns(
        "side-by-side", "every dev item", runs, dev_set_agreement(task, records, answers), (0, 1)
    )
    page = folder / f"{docname}.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>side by side</title></head><body><main>{view_html(view, docname)}</main>"
        "</body></html>\n",
        encoding="utf-8",
    )
    return f"{docname}.html", len(records)


def load_time(browser, url: str, table: str = "items") -> float:
    """Seconds from the navigation to the table's first page drawn, in a fresh page."""
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.locator(f"table#{table}.dataTable tbody tr").first.wait_for(timeout=60_000)
    page.locator(f"#{table}_info").wait_for(timeout=60_000)
    seconds = time.perf_counter() - start
    page.close()
    return seconds


def pick_time(browser, url: str) -> float:
    """Seconds from picking runs 3 and 4 (keyboard) to their list drawn, on a loaded page."""
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.goto(url)
    page.locator("table#side-by-side-items.dataTable").wait_for(timeout=60_000)
    start = time.perf_counter()
    for select, index in (("#side-by-side-b", 3), ("#side-by-side-a", 2)):
        page.locator(select).focus()
        page.keyboard.press("Home")
        for _ in range(index):
            page.keyboard.press("ArrowDown")
    page.wait_for_function("location.hash.endsWith('=3,4')", timeout=60_000)
    seconds = time.perf_counter() - start
    page.close()
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", default=shutil.which("chromium"))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not args.chromium:
        print("no Chromium found: install Debian's chromium or pass --chromium", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        site = Path(scratch)
        pages = write_site(site)
        with accessibility.served(site) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=args.chromium, args=["--no-sandbox"]
            )
            for name, (path, count) in pages.items():
                size = (site / path).stat().st_size
                table = "side-by-side-items" if "side by side" in name else "items"
                times = [load_time(browser, base + path, table) for _ in range(args.repeats)]
                shown = ", ".join(f"{t:.2f}" for t in times)
                print(
                    f"{name}: {count:,} items, page {size / 1e6:.2f} MB (+ the 0.73 MB "
                    f"DataTables bundle): loaded in {shown} s, median "
                    f"{statistics.median(times):.2f} s"
                )
                if table != "items":
                    picks = [pick_time(browser, base + path) for _ in range(args.repeats)]
                    shown = ", ".join(f"{t:.2f}" for t in picks)
                    print(f"{name}: another pair picked in {shown} s")
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
