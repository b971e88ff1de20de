"""What axe-core finds on a built site: its serious and critical WCAG 2.1 A/AA violations on one
page of each kind (every hand-written page, a run page, each task's results and methods pages),
at a laptop's (1366 px) and a phone's (400 px) width, in the theme's light and dark colour modes.

    python benchmarks/accessibility.py _build/html [--chromium /usr/bin/chromium]

It serves the html folder over HTTP on the loopback address, opens each page in headless Chromium
(Debian's, driven by Playwright), injects axe-core (`npm ci` at the repository root installs the
version package-lock.json pins) and prints, per kind of page, the findings at each width and mode
and the rules they break, then the total. A kind of page the site lacks (an older build) is
listed as absent. Then, read from the HTML of every page without a browser (`unreadable`), each
image with no text alternative and each table without header cells or a caption. The browser
test (tests/end_to_end/test_site_in_browser.py) audits the same pages with the same functions and
fails on any finding; the end-to-end test (tests/end_to_end/test_end_to_end.py) runs
`unreadable` over a book of every task.
"""

import argparse
import contextlib
import functools
import http.server
import re
import shutil
import sys
import threading
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
WIDTHS = ({"width": 1366, "height": 900}, {"width": 400, "height": 844})
MODES = ("light", "dark")
# The serious and critical violations on the page: one {rule, impact, target, summary} per element.
AXE_RUN = """async tags => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags},
                                          resultTypes: ["violations"]});
  return result.violations
    .filter(v => v.impact === "serious" || v.impact === "critical")
    .flatMap(v => v.nodes.map(n => ({rule: v.id, impact: v.impact, target: n.target.join(" "),
                                     summary: n.failureSummary})));
}"""


def wanted_pages(site: Path, tasks: list[str]) -> dict[str, str]:
    """One page of each kind of the book by kind: its path in the site. The kinds are each
    hand-written page of book/ (intro is the front page), a run page, and each task's results
    and methods pages, and a submission's page where the site has one."""
    pages = {p.stem: f"book/{p.stem}.html" for p in sorted((ROOT / "book").glob("*.md"))}
    runs = sorted((site / "book" / "runs").glob("*/*.html"))
    pages["run"] = runs[0].relative_to(site).as_posix() if runs else "book/runs/(none)"
    submitted = sorted((site / "book" / "_generated" / "submissions").glob("*.html"))
    if submitted:  # a submission's page, where the book shows submissions
        pages["submission"] = submitted[0].relative_to(site).as_posix()
    for task in tasks:
        pages[f"{task} results"] = f"book/_generated/tasks/{task}.html"
        pages[f"{task} method"] = f"book/_generated/methods/{task}.html"
    return pages


def page_kinds(site: Path, tasks: list[str]) -> dict[str, str]:
    """`wanted_pages` that the site has."""
    return {k: path for k, path in wanted_pages(site, tasks).items() if (site / path).is_file()}


def audit(browser, base_url: str, pages: dict[str, str]) -> list[dict]:
    """axe-core's serious and critical findings on each page, at each width, in each colour mode
    (the reader's system setting): one dict per element, with its kind, width and mode."""
    findings = []
    page = browser.new_page()
    for mode in MODES:
        page.emulate_media(color_scheme=mode)
        for viewport in WIDTHS:
            page.set_viewport_size(viewport)
            for kind, path in pages.items():
                page.goto(base_url + path)
                page.wait_for_load_state("networkidle")
                if page.evaluate("document.documentElement.dataset.theme") != mode:
                    raise RuntimeError(f"{path} is not in the {mode} colour mode")
                page.add_script_tag(path=AXE)
                where = {"kind": kind, "mode": mode, "width": viewport["width"]}
                findings += [where | found for found in page.evaluate(AXE_RUN, WCAG_AA)]
    page.close()
    return findings


class Readable(HTMLParser):
    """The images (src, alt) and tables (whether each has a header cell and a caption) of the
    main content of one HTML file."""

    def __init__(self):
        super().__init__()
        self.images: list[tuple[str, str]] = []
        self.tables: list[dict] = []
        self.depth = 0  # inside <main>

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.depth += tag == "main"
        if not self.depth:
            return
        if tag == "img":
            self.images.append((attrs.get("src", ""), attrs.get("alt") or ""))
        elif tag == "table" and "hidden" not in attrs:  # a hidden one is filled by a script
            self.tables.append({"class": attrs.get("class", ""), "th": False, "caption": ""})
        elif tag in ("th", "caption") and self.tables:
            self.tables[-1][tag] = True if tag == "th" else self.tables[-1][tag] or " "

    def handle_endtag(self, tag):
        self.depth -= tag == "main" and self.depth > 0

    def handle_data(self, data):
        if self.tables and self.tables[-1]["caption"] == " ":
            self.tables[-1]["caption"] = data.strip() or " "


def unreadable(site: Path) -> list[str]:
    """Each image without a text alternative and each table without header cells or a caption,
    in the main content of every page of the html folder `site`: one line each."""
    problems = []
    for path in sorted(p for p in site.rglob("*.html") if "_static" not in p.parts):
        name = path.relative_to(site).as_posix()
        if name in ("genindex.html", "search.html"):  # the theme's own pages, no content
            continue
        readable = Readable()
        readable.feed(path.read_text(encoding="utf-8"))
        for src, alt in readable.images:
            # myst-nb's default, the image's own path, says nothing about what it shows.
            if not alt or alt == src or re.search(r"\.(png|svg|jpe?g)$", alt):
                problems.append(f"{name}: image {src} has no text alternative ({alt!r})")
        for table in readable.tables:
            if not table["th"] or not table["caption"].strip():
                problems.append(f"{name}: table {table} lacks header cells or a caption")
    return problems


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a browser that closes a connection early is not an error of the site


@contextlib.contextmanager
def served(site: Path):
    """The html folder `site` served over HTTP on the loopback address: its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()


def main() -> int:
    from playwright.sync_api import sync_playwright

    from kluebook.tasks import all_tasks

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a built book's html folder (_build/html)")
    parser.add_argument("--chromium", default=shutil.which("chromium"), help="Chromium to drive")
    args = parser.parse_args()
    if not args.chromium or not AXE.is_file():
        sys.exit("error: needs Debian's chromium and axe-core (`npm ci` in the repository)")
    tasks = list(all_tasks())
    pages = page_kinds(args.site, tasks)
    with sync_playwright() as playwright, served(args.site) as base_url:
        # --no-sandbox: as root, Chromium's sandbox cannot start.
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        findings = audit(browser, base_url, pages)
        browser.close()
    combos = [(w["width"], mode) for mode in MODES for w in WIDTHS]
    print("page kind | " + " | ".join(f"{w} px {m}" for w, m in combos) + " | rules")
    for kind in pages:
        found = [f for f in findings if f["kind"] == kind]
        counts = [sum(1 for f in found if (f["width"], f["mode"]) == c) for c in combos]
        rules = Counter(f["rule"] for f in found)
        print(f"{kind} | " + " | ".join(map(str, counts)) + f" | {dict(rules.most_common())}")
    absent = [kind for kind in wanted_pages(args.site, tasks) if kind not in pages]
    if absent:
        print(f"absent from this site: {', '.join(absent)}")
    rules = Counter(f["rule"] for f in findings)
    print(
        f"total: {len(findings)} findings on {len(pages)} pages x 4 ({dict(rules.most_common())})"
    )
    problems = unreadable(args.site)
    print(
        f"plain HTML, every page: {len(problems)} images or tables unreadable", *problems, sep="\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
