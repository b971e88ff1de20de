"""Screenshots of each kind of page of a built site, for a person to look at: at a laptop's
(1366 px) and a phone's (400 px) width, in the theme's light and dark colour modes.

    python benchmarks/screenshots.py _build/html FOLDER [--chromium /usr/bin/chromium]

It serves the html folder over HTTP on the loopback address (as the browser test does), opens one
page of each kind in headless Chromium (Debian's, driven by Playwright) and saves each whole page
as FOLDER/<kind>-<width>-<mode>.png: the kinds of `benchmarks/page_weight.py` (the front page,
the results page, a task page, a methods page, a fine-tuned and a prompted run page, the status
and errata pages) and the side-by-side view of a task page (the view alone, its first pair
shown). It prints each file it writes. The browser test
(tests/end_to_end/test_site_in_browser.py) takes the same screenshots with `shoot` while it
checks each kind of page.
"""

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import accessibility  # the served site, as the browser test serves it
import page_weight  # one page of each kind

# The side-by-side view: the first one on a task page.
SIDE_BY_SIDE = ".kluebook-side-by-side"


def shoot(page, kind: str, folder: Path) -> list[Path]:
    """Screenshots of the page open in `page`, of kind `kind`, at its width and colour mode:
    the whole page, and on a task page its side-by-side view alone. The paths written."""
    width = page.viewport_size["width"]
    mode = page.evaluate("document.documentElement.dataset.theme")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{kind.replace(' ', '-')}-{width}-{mode}.png"
    page.screenshot(path=path, full_page=True)
    written = [path]
    view = page.locator(SIDE_BY_SIDE)
    if kind == "task page" and view.count():
        written.append(folder / f"side-by-side-{width}-{mode}.png")
        view.first.screenshot(path=written[-1])
    return written


def main() -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a built book's html folder (_build/html)")
    parser.add_argument("folder", type=Path, help="where the screenshots go")
    parser.add_argument("--chromium", default=shutil.which("chromium"), help="Chromium to drive")
    args = parser.parse_args()
    if not args.chromium:
        sys.exit("error: needs Debian's chromium")
    if not (args.site / "book" / "intro.html").is_file():
        sys.exit(f"error: {args.site} is not a built book's html folder (no book/intro.html)")
    with sync_playwright() as playwright, accessibility.served(args.site) as base_url:
        # --no-sandbox: as root, Chromium's sandbox cannot start.
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        for kind, path in page_weight.page_kinds(args.site).items():
            for viewport in accessibility.WIDTHS:
                for mode in accessibility.MODES:
                    page = browser.new_page(viewport=viewport, color_scheme=mode)
                    page.goto(base_url + path)
                    page.wait_for_load_state("networkidle")
                    for written in shoot(page, kind, args.folder):
                        print(written)
                    page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
