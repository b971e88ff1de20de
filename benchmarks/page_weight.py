"""What each kind of page of a built site weighs as a reader's browser gets it from a static host
that compresses: every request the page makes until the network is idle (its HTML, the theme's
and kluebook's scripts and styles, fonts, images, the search index, the DataTables bundle, an
item browser's data), text gzip-compressed as such a host serves it, images and fonts as they
are.

    python benchmarks/page_weight.py _build/html [--chromium /usr/bin/chromium] [--budget 1e6]

It serves the html folder over HTTP on the loopback address (uncompressed, as the browser test
does), opens one page of each kind in headless Chromium (Debian's, driven by Playwright) at
1366 px, and for each response compresses its body with gzip at level 6 (what nginx and most
static hosts use) where its type is text (HTML, CSS, JavaScript, JSON, SVG), counting other
bodies as they are. It prints, per kind of page, the bytes uncompressed and compressed and the
five heaviest files, and whether each kind is within the budget (1 MB compressed, #51). The
kinds are the front page, the results page, a task page (with its side-by-side view), a methods
page, a run page with its item browser, a prompted run page, the status page and the errata
page; then every page that grows with the dev sets: each submission's page (its item browsers)
and each other task page with a side-by-side view. The browser test
(tests/end_to_end/test_site_in_browser.py) weighs the same pages with `weigh`.
"""

import argparse
import gzip
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import accessibility  # noqa: E402 (the served site, as the browser test serves it)

BUDGET = 1_000_000
TEXT = ("text/", "javascript", "json", "svg", "xml")
# How a task page's side-by-side view starts (kluebook.book.side_by_side).
SIDE_BY_SIDE = 'class="kluebook-side-by-side"'


def page_kinds(site: Path) -> dict[str, str]:
    """One page of each kind that the site has, by kind: its path in the site."""
    runs = sorted((site / "book" / "runs").glob("*/*.html"))
    fine_tuned = [r for r in runs if "prompted" not in r.name]
    prompted = [r for r in runs if "prompted" in r.name]
    pages = {
        "front page": "book/intro.html",
        "results": "book/results.html",
        "task page": "book/_generated/tasks/ynat.html",
        "methods page": "book/_generated/methods/ynat.html",
        "status": "book/status.html",
        "errata": "book/errata.html",
    }
    if fine_tuned:
        pages["run page"] = fine_tuned[0].relative_to(site).as_posix()
    if prompted:
        pages["prompted run page"] = prompted[0].relative_to(site).as_posix()
    generated = site / "book" / "_generated"
    for page in sorted((generated / "submissions").glob("*.html")):
        pages[f"submission page {page.stem}"] = page.relative_to(site).as_posix()
    for page in sorted((generated / "tasks").glob("*.html")):
        if page.stem != "ynat" and SIDE_BY_SIDE in page.read_text(encoding="utf-8"):
            pages[f"side by side {page.stem}"] = page.relative_to(site).as_posix()
    return {kind: path for kind, path in pages.items() if (site / path).is_file()}


def weigh(browser, url: str, viewport=None) -> dict[str, tuple[int, int]]:
    """Each file the page at `url` loads until the network is idle: its address -> (bytes as
    served here, bytes gzip-compressed where a static host would compress it)."""
    page = browser.new_page(viewport=viewport or {"width": 1366, "height": 900})
    files: dict[str, tuple[int, int]] = {}

    def finished(response):
        try:
            body = response.body()
        except Exception:  # a redirect or an aborted request has no body
            return
        kind = response.headers.get("content-type", "")
        packed = len(gzip.compress(body, 6)) if any(t in kind for t in TEXT) else len(body)
        files[response.url] = (len(body), min(packed, len(body)))

    page.on("response", finished)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)
    page.close()
    return files


def main() -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a built book's html folder (_build/html)")
    parser.add_argument("--chromium", default=shutil.which("chromium"), help="Chromium to drive")
    parser.add_argument("--budget", type=float, default=BUDGET, help="bytes, compressed")
    args = parser.parse_args()
    if not args.chromium:
        sys.exit("error: needs Debian's chromium")
    over = 0
    with sync_playwright() as playwright, accessibility.served(args.site) as base_url:
        # --no-sandbox: as root, Chromium's sandbox cannot start.
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        for kind, path in page_kinds(args.site).items():
            files = weigh(browser, base_url + path)
            raw = sum(r for r, _ in files.values())
            packed = sum(p for _, p in files.values())
            within = packed <= args.budget
            over += not within
            print(
                f"{kind} ({path}): {len(files)} files, {raw:,} bytes, {packed:,} gzip "
                f"({'within' if within else 'OVER'} {args.budget:,.0f})"
            )
            for address, (size, gz) in sorted(files.items(), key=lambda kv: -kv[1][1])[:5]:
                print(f"  {gz:>9,} gzip {size:>10,}  {address.rsplit('/', 1)[-1][:60]}")
        browser.close()
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
