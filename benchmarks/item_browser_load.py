"""How long a paper run's item browser takes to load: KLUE's dev sizes (9,107 YNAT headlines,
5,841 MRC questions), generated, in the table a run page shows, opened in headless Chromium.

    python benchmarks/item_browser_load.py [--chromium /usr/bin/chromium] [--repeats 3]

For each task it generates a dev split of that size (the smoke generators, seed 0), predictions
that are the gold but for every seventh item, and renders them with the run pages' item browser
(`kluebook.book.item_browser`) into a page of a scratch site laid out like the book's (DataTables'
bundle and the address script in `_static/`). The site is served over HTTP on the loopback
address; each load opens the page in a fresh browser page and times it from the navigation to
the table's first page drawn by DataTables (its rows in the page, its item count shown). It
prints the page's size, each load's time and the median; #38 asks for 2 s or less.

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


def predictions(task, records: list[dict]) -> list[dict]:
    """The gold as predictions, every `WRONG_EVERY`th one changed to another item's answer."""
    lines = task.module.gold_predictions(records, {})
    for i in range(0, len(lines), WRONG_EVERY):
        other = lines[(i + 1) % len(lines)]
        lines[i] = {**other, "guid": lines[i]["guid"]}
    return lines


def write_site(folder: Path) -> dict[str, tuple[str, int]]:
    """A scratch site with one item browser page per task: each page's path and item count."""
    from itables.utils import find_package_file

    from kluebook.book.item_browser import browser_html
    from kluebook.results.items import items_frame
    from kluebook.tasks import get_task

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
        generated = task.module.generate(seed=0, **size)["dev"]
        official = folder / "data" / task.files["dev"]
        task.module.write_official(generated, official)
        records = task.module.read_official(official)
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
    return pages


def load_time(browser, url: str) -> float:
    """Seconds from the navigation to the table's first page drawn, in a fresh page."""
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.locator("table#items.dataTable tbody tr").first.wait_for(timeout=60_000)
    page.locator("#items_info").wait_for(timeout=60_000)
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
                times = [load_time(browser, base + path) for _ in range(args.repeats)]
                shown = ", ".join(f"{t:.2f}" for t in times)
                print(
                    f"{name}: {count:,} items, page {size / 1e6:.2f} MB (+ the 0.73 MB "
                    f"DataTables bundle): loaded in {shown} s, median "
                    f"{statistics.median(times):.2f} s"
                )
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
