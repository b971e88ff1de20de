"""The built site, opened in a real browser (headless Chromium driven by Playwright).

A small smoke book (two tasks, two seeds, cut-down data: the session's shared `smoke_site`) is
served over HTTP. The results page must show the one KLUE table with all its metric columns, every
image must load, no page may log a console error, the search page must find a task by name, Korean
text must render with a CJK font, and no internal link may be broken. The KLUE table fits a 1366 px
laptop, its metric headers link to their definitions; a run page's parameter table has no
overlapping cells at 1400 and 400 px (element boxes); a smoke build says so in a banner on every
page and a notice on each smoke run page; a page shows one search box. Accessibility (WCAG 2.1 AA):
axe-core finds no serious or critical violation on any kind of page at 1366 and 400 px, light and
dark; the keyboard's first stop skips to the content and every stop shows a focus ring; every
figure has a text alternative, every table header cells and a caption. Screenshots of each kind of
page at 1366 and 400 px, light and dark (those of benchmarks/screenshots.py), are left in
_build/test-artifacts/ for a person to look at. Every item browser fits its column at 1366 px, and
the controls of every interactive table read apart. A run page's item browser (every dev item,
itables): a filter set with SearchBuilder, a shared view and an item's permalink open as they
should, its controls work with the keyboard and pass axe-core at both widths in both modes, it is a
plain table without JavaScript, and what the page loads beyond the theme's shared assets stays
under 1.5 MB (printed). The other interactive tables: the KLUE table filtered by its Block column
and sorted within its blocks, and a task page's side-by-side view with any two of its runs picked,
both from the keyboard and audited; without JavaScript both are plain tables.

Needs Debian's `chromium` and `fonts-noto-cjk` (.ci/run installs them), the `playwright` package of
the dev extra, and for the audit axe-core from npm (`npm ci` at the repository root installs the
version package-lock.json pins; .ci/run does); Playwright's own browser download is never used.
KLUEBOOK_CHROMIUM names another Chromium; KLUEBOOK_BROWSER_SITE checks the html folder of a smoke
book of YNAT and NLI built already instead of building one; KLUEBOOK_BROWSER_BOOK names the html
folder of a default smoke book (`kluebook book`: every task, fine-tuned and prompted runs) whose
every run page's item browser is measured at 1366 px (without it, those of the two-task site);
KLUEBOOK_TEST_ARTIFACTS names the folder of the screenshots.
"""

import json
import os
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import pytest
from conftest import load_script
from support.chromium import accessibility, chromium, require_axe, require_chromium

from kluebook.common.paths import CHECKOUT, ROOT
from kluebook.tasks import all_tasks

pytestmark = pytest.mark.slow

ARTIFACTS = Path(os.environ.get("KLUEBOOK_TEST_ARTIFACTS", ROOT / "_build" / "test-artifacts"))
LAPTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}
NARROW = {"width": 400, "height": 844}
CJK_FONT = re.compile(r"CJK|Nanum|Malgun|Apple SD Gothic|Noto Sans KR|Noto Serif KR|Gulim|Dotum")


@pytest.fixture(scope="module")
def site(request) -> Path:
    """The html folder of a smoke book of two tasks and two seeds (`smoke_site`)."""
    require_chromium()
    if os.environ.get("KLUEBOOK_BROWSER_SITE"):  # check a smoke site built already
        return Path(os.environ["KLUEBOOK_BROWSER_SITE"])
    return request.getfixturevalue("smoke_site")  # built only when needed


@pytest.fixture(scope="module")
def base_url(site):
    """The site served over HTTP, as a reader's browser gets it."""
    with accessibility.served(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser(site):
    with chromium() as launched:
        yield launched


class Visit:
    """A page opened in the browser, with the console errors and failed requests it caused."""

    def __init__(self, browser, url: str, viewport=LAPTOP, color_scheme="light"):
        self.page = browser.new_page(viewport=viewport, color_scheme=color_scheme)
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        self.page.on(
            "response",
            lambda r: self.errors.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        self.page.goto(url)
        self.page.wait_for_load_state("networkidle")

    def broken_images(self) -> list[str]:
        return self.page.evaluate(
            "Array.from(document.images)"
            ".filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
        )

    def close(self):
        self.page.close()


def html_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


def run_page(site: Path) -> Path:
    return sorted((site / "book" / "runs" / "ynat").glob("*seed1.html"))[0]


def test_the_results_page_shows_one_klue_table_with_every_metric_column(site, base_url, browser):
    visit = Visit(browser, base_url + "book/results.html")
    page = visit.page
    table = page.locator("table#klue-table")  # the interactive table, shown with JavaScript
    metrics = [m.label for t in all_tasks().values() for m in t.metrics]
    assert len(metrics) == 14
    heads = table.locator("thead th.metric a:not(sup a)")
    assert heads.all_inner_texts() == metrics
    # Each metric header links to the Metrics section of its task's methods page.
    hrefs = heads.evaluate_all("l => l.map(a => a.href)")
    assert all("/_generated/methods/" in h and "-metrics" in h for h in hrefs)
    assert table.locator("thead th.metric sup").count() >= 8  # the quirky metrics, marked
    tasks = table.locator("thead th.task a").all_inner_texts()
    assert tasks == ["YNAT", "STS", "NLI", "NER", "RE", "DP", "MRC", "WoS"]
    published = table.locator("tbody tr.published")
    assert published.count() == 9
    assert "86.06" in published.nth(6).inner_text()  # XLM-R-large, YNAT
    smoke = table.locator("tbody tr.pipeline-check")
    assert smoke.count() == 1 and "kluebook/tiny-roberta" in smoke.inner_text()
    links = smoke.locator("td a")
    assert links.count() == 4  # two seeds of two tasks, each linking to its run's items
    # At a laptop's width (1366 px) the whole table is in view, without scrolling sideways.
    wrap = page.locator(".klue-table-wrap").first
    assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    assert table.evaluate("e => e.getBoundingClientRect().right") <= LAPTOP["width"]
    assert table.locator("tbody tr.dev-reference").count() == 9
    # The interactive copy keeps every section row of the plain table, in its order.
    plain_sections = page.locator("#klue-table_fallback tr.section").all_text_contents()
    assert table.locator("tbody tr.dtrg-start").all_text_contents() == plain_sections
    assert "No paper-profile run yet" in table.locator("tbody th.model.empty").inner_text()
    # A model's name reads on one line (a submission's is free text, wrapped within its cell:
    # test_submissions_in_browser); a cell's parts are apart in its text.
    names = table.locator("tbody tr:not(.submitted) th.model > :first-child")
    assert names.evaluate_all("l => l.every(e => e.getClientRects().length === 1)")
    # A published or dev-reference row's head reads on two lines: its name, then its facts
    # with the paper link.
    heads = table.locator("tbody :is(tr.published, tr.dev-reference) th.model")
    assert max(heads.evaluate_all(f"l => l.map({TEXT_LINES})")) <= 2
    text = smoke.locator("td.num").first.text_content()
    assert re.search(r"\d \u00b1 \d+\.\d\d · n=2 s1 s2", text), text
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / "results-laptop.png", full_page=True)
    links.first.click()
    page.wait_for_load_state("networkidle")
    assert "/book/runs/ynat/" in page.url and urlsplit(page.url).fragment == "items"
    assert "Run card" in page.content()
    visit.close()
    phone = Visit(browser, base_url + "book/results.html", viewport=NARROW)
    phone.page.screenshot(path=ARTIFACTS / "results-phone.png", full_page=True)
    assert phone.page.evaluate(NO_SIDEWAYS_SCROLL)
    # The table's first screen on a phone shows a model and its numbers (the model column
    # pinned, the numbers beside it).
    phone.page.locator("table#klue-table tbody tr.published").first.scroll_into_view_if_needed()
    shown = phone.page.evaluate(FIRST_SCREEN_NUMBERS)
    assert shown["model"] and len(shown["numbers"]) >= 3, shown
    phone.close()


# No page scrolls sideways: nothing is wider than the screen.
NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= innerWidth + 1"
# The KLUE table's first row on screen: whether its model's name is in view, and the numbers
# of that row wholly in view (not under the pinned model column, not past the screen's edge).
FIRST_SCREEN_NUMBERS = """() => {
  const row = document.querySelector("table#klue-table tbody tr.published");
  const inView = b => b.left >= 0 && b.right <= innerWidth && b.top >= 0 && b.bottom <= innerHeight;
  const model = row.querySelector("th.model").getBoundingClientRect();
  const numbers = Array.from(row.querySelectorAll("td.num"))
    .filter(c => { const b = c.getBoundingClientRect();
                   return inView(b) && b.left >= model.right - 1; })
    .map(c => c.textContent.trim());
  return {model: inView(model), numbers};
}"""


# How many lines an element's text takes (its text boxes grouped by line, a footnote mark on its
# line's own).
TEXT_LINES = """e => {
  const boxes = [], walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const range = document.createRange();
    range.selectNodeContents(node);
    boxes.push(...Array.from(range.getClientRects()).filter(b => b.width > 0 && b.height > 0));
  }
  boxes.sort((a, b) => a.top - b.top);
  let lines = 0, bottom = -Infinity;
  for (const b of boxes) {
    if ((b.top + b.bottom) / 2 > bottom) { lines += 1; bottom = b.bottom; }
    else bottom = Math.max(bottom, b.bottom);
  }
  return lines;
}"""
# Korean text broken inside a word: of the elements `selector` names, the texts where a line
# ends between two Hangul syllables (a line may end only at a space between words or a line
# break of the text; a run of letters longer than any word, which an item browser marks
# `.long-word`, anywhere).
MID_WORD_BREAKS = """selector => {
  const broken = [];
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let node, top = null, previous = "";
    while ((node = walker.nextNode())) {
      if (node.parentElement.closest(".long-word")) { top = null; continue; }
      if (node.previousSibling && node.previousSibling.nodeName === "BR") previous = "";
      for (let i = 0; i < node.data.length; i += 1) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0], letter = node.data[i];
        if (box && box.width > 0) {
          const hangul = /[\uac00-\ud7a3]/;
          if (top !== null && box.top > top + 2 && hangul.test(letter) && hangul.test(previous))
            broken.push(element.textContent.trim());
          top = box.top;
        }
        previous = letter;
      }
    }
  }
  return broken;
}"""
# An identifier or a hash broken inside: of the elements `selector` names, the texts where a
# line ends other than at a space (a run's name wraps between its parts, "dev_limit=20" whole),
# or, given [selector, separators], other than at a space or after one of the separators.
MID_IDENTIFIER_BREAKS = """argument => {
  const [selector, separators] = Array.isArray(argument) ? argument : [argument, ""];
  const apart = new RegExp(`[\\\\s${separators}]`);
  const broken = [];
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let node, top = null, previous = " ";
    while ((node = walker.nextNode())) {
      for (let i = 0; i < node.data.length; i += 1) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0], letter = node.data[i];
        if (box && box.width > 0) {
          if (top !== null && box.top > top + 2 && !apart.test(previous) && !/\s/.test(letter))
            broken.push(element.textContent.trim());
          top = box.top;
        }
        previous = letter;
      }
    }
  }
  return broken;
}"""
# How a page's item browser sits in its column (the article's content box): the column's width,
# the widest the table gets (its long texts closed, then opened) and the cells whose content
# runs out of them or is cut off (a text that scrolls in a box of its own is neither).
ITEMS_FIT = """() => {
  const table = document.querySelector("table#items");
  const article = document.querySelector("article.bd-article"), style = getComputedStyle(article);
  const column = article.clientWidth - parseFloat(style.paddingLeft)
                 - parseFloat(style.paddingRight);
  const clipped = e => ["hidden", "clip"].includes(getComputedStyle(e).overflowX)
                       && e.scrollWidth > e.clientWidth + 1;
  const cut = () => Array.from(table.querySelectorAll("td, th"))
    .filter(c => c.scrollWidth > c.clientWidth + 1
                 || Array.from(c.querySelectorAll("*")).some(clipped))
    .map(c => c.textContent.trim().slice(0, 60));
  const closed = table.getBoundingClientRect().width, cutClosed = cut();
  table.querySelectorAll("details").forEach(d => { d.open = true; });
  const opened = table.getBoundingClientRect().width;
  return {column, width: Math.max(closed, opened), cut: [...new Set([...cutClosed, ...cut()])]};
}"""
# In dark mode, elements of the content with a light background (a light frame or box): their
# tag and classes. Images are left out (a figure keeps its own white).
LIGHT_BOXES = """() => Array.from(document.querySelectorAll("article *"))
  .filter(e => e.tagName !== "IMG" && e.offsetWidth > 40 && e.offsetHeight > 16)
  .filter(e => { const c = getComputedStyle(e).backgroundColor.match(/[\d.]+/g);
                 if (!c || (c.length > 3 && +c[3] < 0.5)) return false;
                 return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] > 160; })
  .map(e => `${e.tagName.toLowerCase()}.${Array.from(e.classList).join(".")}`)"""
# At most this much, gzip-compressed as a static host serves it, may a page of any kind load
# (#51; benchmarks/page_weight.py prints the figures).
GZIP_BUDGET = 1_000_000
page_weight = load_script(CHECKOUT / "benchmarks" / "page_weight.py")
# benchmarks/screenshots.py: the screenshots of each kind of page, the same here as there.
screenshots = load_script(CHECKOUT / "benchmarks" / "screenshots.py")
# The texts of the controls of the DataTables tables (page length, search, count, a filter
# list's title) that run into the text beside them, in the page's innerText (what a copy gets)
# and in each control row's textContent (its text without layout, as a hidden view or a screen
# reader's reading of the row gets it): "entries per pageSearch:".
CONTROLS_RUN_TOGETHER = """() => {
  const apart = (text, part) => {  // an occurrence of `part` with a space or an end each side
    for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      const [before, after] = [text[at - 1] ?? " ", text[at + part.length] ?? " "];
      if (/\\s/.test(before) && /\\s/.test(after)) return true;
    }
    return false;
  };
  const page = document.querySelector("article").innerText, found = [];
  for (const row of document.querySelectorAll(".dt-container > .dt-layout-row")) {
    for (const control of row.querySelectorAll(
        ":is(.dt-length label, .dt-search label, .dt-info, .dtsb-title)")) {
      const part = control.textContent.trim();
      if (part && !(apart(page, part) && apart(row.textContent, part))) found.push(part);
    }
  }
  return found;
}"""


def test_each_kind_of_page_reads_on_a_laptop_and_a_phone_light_and_dark(site, base_url, browser):
    """Each kind of page at 1366 and 400 px, light and dark (screenshots in the artifacts): no
    page scrolls sideways at 400 px; in dark mode no light box inside the content; Korean in
    the item browser, the task page and the KLUE table wraps between words at 400 px; the status
    page's run names and hashes never break inside an identifier; the controls of an interactive
    table (page length, search, count) read apart from each other and from the text around them
    (the page's innerText, as a screen reader or a copy gets it); and each kind loads at most
    1 MB gzip-compressed, its own data included (printed). The screenshots are those of
    benchmarks/screenshots.py, in the artifacts folder (KLUEBOOK_TEST_ARTIFACTS names another)."""
    pages = page_weight.page_kinds(site)
    assert {"results", "task page", "run page", "front page", "status", "errata"} <= set(pages)
    assert "submission page majority-baseline" in pages  # the heaviest page of the book
    problems = []
    for kind, path in pages.items():
        for viewport in (LAPTOP, NARROW):
            for mode in accessibility.MODES:
                visit = Visit(browser, base_url + path, viewport, mode)
                page = visit.page
                screenshots.shoot(page, kind, ARTIFACTS)
                where = f"{kind} at {viewport['width']} px, {mode}"
                if viewport is NARROW and not page.evaluate(NO_SIDEWAYS_SCROLL):
                    problems.append(f"{where}: the page scrolls sideways")
                if mode == "dark":
                    light = page.evaluate(LIGHT_BOXES)
                    problems += [f"{where}: a light box {box}" for box in light]
                if viewport is NARROW:
                    broken = page.evaluate(MID_WORD_BREAKS, "#items tbody td, article p, td")
                    problems += [f"{where}: Korean broken inside a word: {t!r}" for t in broken]
                glued = page.evaluate(CONTROLS_RUN_TOGETHER)
                problems += [f"{where}: {t!r} runs into the text beside it" for t in glued]
                if kind == "status":
                    broken = page.evaluate(MID_IDENTIFIER_BREAKS, "table.kluebook-fixed td")
                    problems += [f"{where}: an identifier broken inside: {t!r}" for t in broken]
                visit.close()
        files = page_weight.weigh(browser, base_url + path)
        packed = sum(gz for _, gz in files.values())
        print(f"\n{kind}: {packed:,} bytes gzip-compressed ({len(files)} files)")
        if packed > GZIP_BUDGET:
            problems.append(f"{kind} loads {packed:,} bytes gzip-compressed")
        if any("fontawesome.js" in address for address in files):
            problems.append(f"{kind} loads the theme's Font Awesome script")
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def every_task_site(site) -> Path:
    """The html folder whose every run page's item browser is measured: KLUEBOOK_BROWSER_BOOK,
    a default smoke book (`kluebook book`: every task, fine-tuned and prompted runs) built
    already, else the two-task smoke site (its fine-tuned runs)."""
    return Path(os.environ.get("KLUEBOOK_BROWSER_BOOK") or site)


def test_every_item_browser_fits_its_column_on_a_laptop(every_task_site, browser):
    """Every run page's item browser, fine-tuned and prompted, at 1366 px: the table no wider
    than the article's column, its long texts closed or opened, no cell's content running out
    of its cell or cut off; Korean breaks between words only, an item's key never inside. In
    a book of every task (KLUEBOOK_BROWSER_BOOK), both kinds of run of each of the eight tasks
    are measured."""
    runs = sorted((every_task_site / "book" / "runs").glob("*/*.html"))
    kinds = {(r.parent.name, "prompted" if "prompted" in r.name else "fine-tuned") for r in runs}
    if os.environ.get("KLUEBOOK_BROWSER_BOOK"):
        assert kinds == {(t, k) for t in all_tasks() for k in ("fine-tuned", "prompted")}
    assert runs
    problems = []
    with accessibility.served(every_task_site) as url:
        for path in runs:
            where = path.relative_to(every_task_site).as_posix()
            visit = open_items(browser, url + where)
            page = visit.page
            broken = page.evaluate(MID_WORD_BREAKS, "#items tbody td")
            problems += [f"{where}: Korean broken inside a word: {t!r}" for t in broken]
            # An item's key wraps after a separator if it must (klue-mrc-v1_dev_00000).
            keys = page.evaluate(MID_IDENTIFIER_BREAKS, ["#items tbody td:first-child", "_:/.-"])
            problems += [f"{where}: an item's key broken inside: {t!r}" for t in keys]
            fit = page.evaluate(ITEMS_FIT)
            measured = f"{where}: {fit['width']:.0f} px in a {fit['column']:.0f} px column"
            print(f"\n{measured}")
            if fit["width"] > fit["column"] + 1:
                problems.append(measured)
            problems += [f"{where}: a cell's content runs out of it: {t!r}" for t in fit["cut"]]
            visit.close()
    assert not problems, "\n".join(problems)


def test_every_page_loads_its_images_without_a_console_error(site, base_url, browser):
    problems = {}
    for path in html_pages(site):
        relative = path.relative_to(site).as_posix()
        visit = Visit(browser, base_url + relative)
        found = visit.errors + [f"image did not load: {src}" for src in visit.broken_images()]
        if found:
            problems[relative] = found
        visit.close()
    assert not problems, problems


def test_the_search_page_finds_a_task_by_name(base_url, browser):
    visit = Visit(browser, base_url + "search.html?q=YNAT")
    results = visit.page.locator("#search-results ul.search li a")
    results.first.wait_for(timeout=20_000)
    assert any("tasks/ynat.html" in (a.get_attribute("href") or "") for a in results.all())
    assert not visit.errors, visit.errors
    visit.close()


def test_korean_text_renders_with_a_cjk_font(base_url, browser):
    visit = Visit(browser, base_url + "book/_generated/tasks/ynat.html")
    page = visit.page
    # Put one Hangul word of the page in a span of its own: which fonts draw it?
    page.evaluate(
        """() => {
        const walker = document.createTreeWalker(document.querySelector("article"),
                                                 NodeFilter.SHOW_TEXT);
        let node;
        while ((node = walker.nextNode()) && !node.data.includes("정치")) {}
        const at = node.data.indexOf("정치");
        const word = node.splitText(at);
        word.splitText(2);
        const hangul = document.createElement("span");
        hangul.id = "hangul";
        word.parentNode.replaceChild(hangul, word);
        hangul.appendChild(word);
    }"""
    )
    session = page.context.new_cdp_session(page)
    session.send("DOM.enable")
    session.send("CSS.enable")
    document = session.send("DOM.getDocument")["root"]["nodeId"]
    node = session.send("DOM.querySelector", {"nodeId": document, "selector": "#hangul"})
    fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    assert fonts and all(CJK_FONT.search(f["familyName"]) for f in fonts), fonts
    # And the pixels: two syllables drawn apart differ from each other and from a box.
    page.evaluate(
        """() => {
        document.getElementById("hangul").insertAdjacentHTML("afterend",
            '<span id="s1">정</span><span id="s2">치</span><span id="t1">\\u{10FFFD}</span>');
    }"""
    )
    first, second, box = (page.locator(s).screenshot() for s in ("#s1", "#s2", "#t1"))
    assert first != second and box not in (first, second)
    visit.close()


class Links(HTMLParser):
    """The internal links (href and src) and the ids of one HTML file."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            value = attrs.get(name)
            if value and not urlsplit(value).scheme and not value.startswith("//"):
                self.links.append(value)


def parse(path: Path) -> Links:
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_no_internal_link_of_the_built_site_is_broken(site):
    parsed = {path: parse(path) for path in html_pages(site)}
    broken = []
    for path, links in parsed.items():
        for link in links.links:
            target, _, fragment = link.partition("#")
            target = unquote(target.split("?")[0])
            resolved = (path.parent / target).resolve() if target else path
            if resolved.is_dir():
                resolved = resolved / "index.html"
            if not resolved.exists():
                broken.append(f"{path.relative_to(site)}: {link}")
            elif fragment and resolved.suffix == ".html":
                ids = parsed[resolved].ids if resolved in parsed else parse(resolved).ids
                if unquote(fragment) not in ids:
                    broken.append(f"{path.relative_to(site)}: {link} (no such anchor)")
    assert not broken, broken


def test_pages_link_both_ways_from_table_to_run_to_task_to_method(site):
    results = (site / "book" / "results.html").read_text()
    run = run_page(site)
    name = quote(run.name)  # every link to a page has one form: Sphinx's, percent-encoded
    assert f"runs/ynat/{name}" in results
    run_html = run.read_text()
    assert "../../_generated/tasks/ynat.html" in run_html  # run page -> task page
    assert "../../_generated/methods/ynat.html" in run_html  # run page -> method page
    task = (site / "book" / "_generated" / "tasks" / "ynat.html").read_text()
    assert f"../../runs/ynat/{name}" in task  # task page -> its runs
    assert "../methods/ynat.html" in task  # task page -> method page
    method = (site / "book" / "_generated" / "methods" / "ynat.html").read_text()
    assert "../tasks/ynat.html" in method  # method page -> task page
    # No second form of a run page's address (its commas raw) in a link to a page (the theme's
    # download of a page's source, a file, keeps its own).
    assert not re.search(r'href="(?![^"]*_sources/)[^"]*runs/[^"]*,', results + task + run_html)


def test_the_sidebar_lists_tasks_with_their_runs_under_them(base_url, browser):
    visit = Visit(browser, base_url + "book/_generated/tasks/ynat.html")
    nav = visit.page.locator("nav.bd-links")
    top = [t.strip() for t in nav.locator("li.toctree-l1 > a").all_inner_texts()]
    for task in all_tasks().values():
        assert f"{task.title} — results and runs" in top
    assert not any("seed" in t for t in top)  # runs are not listed flat
    runs = nav.locator("li.toctree-l2 > a").all_inner_texts()
    assert sum("seed" in r for r in runs) == 2  # the two YNAT runs, under YNAT
    visit.close()


def test_a_run_page_is_clean_fits_the_page_and_ends_with_its_card(site, base_url, browser):
    path = run_page(site)
    text = path.read_text()
    for machine in {str(site.parents[2]), sys.prefix, str(Path.home())}:
        assert machine not in text
    assert "it/s]" not in text and "output stderr" not in text
    visit = Visit(browser, base_url + path.relative_to(site).as_posix())
    page = visit.page
    card = page.locator("section#run-card")
    for field in (
        "Libraries",
        "Device",
        "Wall time",
        "Peak memory",
        "Throughput",
        "checksum",
        "Commit",
        "revision",
    ):
        assert field in card.inner_text(), field
    command = card.locator("pre").inner_text()
    assert command.startswith("kluebook run --profile smoke --tasks ynat --models ")
    assert "--seeds 1" in command and "--set train_limit=" in command
    assert "Parameters of this run" in page.content()
    overflowing = page.evaluate(
        "Array.from(document.querySelectorAll('div.cell pre'))"
        ".filter(e => e.scrollWidth > e.clientWidth + 1).length"
    )
    assert overflowing == 0  # long code lines wrap instead of being cut off
    page.screenshot(path=ARTIFACTS / "run-page-laptop.png", full_page=True)
    visit.close()
    task = Visit(browser, base_url + "book/_generated/tasks/ynat.html", viewport=PHONE)
    task.page.screenshot(path=ARTIFACTS / "task-page-phone.png", full_page=True)
    task.close()


# The boxes of a table's cells, and of every element inside a cell, as the browser laid them out:
# [[cell, [its elements]], ...] per row, each box [left, top, right, bottom].
CELL_BOXES = """t => Array.from(t.rows).map(r => Array.from(r.cells).map(c => {
  const box = e => {
    const b = e.getBoundingClientRect();
    return [b.left, b.top, b.right, b.bottom];
  };
  return [box(c), Array.from(c.querySelectorAll("*")).map(box)];
}))"""


def overlaps(a, b, slack=1.0) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


@pytest.mark.parametrize("viewport", [DESKTOP, NARROW], ids=["1400px", "400px"])
def test_a_run_pages_parameter_table_has_no_overlapping_cells(site, base_url, browser, viewport):
    path = run_page(site).relative_to(site).as_posix()
    visit = Visit(browser, base_url + path, viewport=viewport)
    table = visit.page.locator("table.kluebook-fixed", has_text="notebook default").first
    rows = table.evaluate(CELL_BOXES)
    assert len(rows) > 10
    problems = []
    for number, row in enumerate(rows):
        cells = [cell for cell, _ in row]
        for i, a in enumerate(cells):
            problems += [
                (number, i, j) for j, b in enumerate(cells[i + 1 :], i + 1) if overlaps(a, b)
            ]
        for i, (cell, inner) in enumerate(row):
            outside = [
                box
                for box in inner
                if box[2] > box[0] and (box[0] < cell[0] - 1 or box[2] > cell[2] + 1)
            ]
            problems += [(number, i, "runs out of its cell")] * bool(outside)
    assert not problems, problems
    article = visit.page.locator("article").evaluate("e => e.getBoundingClientRect().right")
    assert table.evaluate("e => e.getBoundingClientRect().right") <= article + 1
    assert visit.page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1")
    visit.close()


def test_a_smoke_build_says_so_on_every_page_and_each_smoke_run_page_opens_with_a_notice(
    site, base_url, browser
):
    for path in [
        "book/intro.html",
        "book/results.html",
        run_page(site).relative_to(site).as_posix(),
    ]:
        visit = Visit(browser, base_url + path)
        banner = visit.page.locator(".bd-header-announcement")
        assert banner.count() == 1 and banner.is_visible(), path
        assert "smoke runs" in banner.inner_text() and "randomly initialised" in banner.inner_text()
        assert "reproduce.html" in banner.locator("a").get_attribute("href")
        visit.close()
    notice = Visit(browser, base_url + run_page(site).relative_to(site).as_posix())
    warning = notice.page.locator("article h1 + .admonition.warning")  # right under the title
    assert warning.count() == 1 and "A smoke run" in warning.inner_text()
    card = notice.page.locator("article h1 + .admonition.warning + div table")  # then the card
    assert "Dev scores" in card.inner_text()
    notice.close()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_page_shows_one_search_box(base_url, browser, viewport):
    visit = Visit(browser, base_url + "book/results.html", viewport=viewport)
    visible = visit.page.evaluate(
        "Array.from(document.querySelectorAll('.search-button-field, button.search-button'))"
        ".filter(e => { const b = e.getBoundingClientRect();"
        " return b.width > 0 && b.height > 0 && b.right > 0 && b.left < innerWidth"
        " && getComputedStyle(e).visibility !== 'hidden'; })"
        ".length"
    )
    assert visible == 1
    visit.close()


def test_the_cite_page_has_the_full_klue_entry_the_book_and_every_model(site):
    html = (site / "book" / "cite.html").read_text(encoding="utf-8")
    cite = re.sub(r"<[^>]+>", "", html)  # the BibTeX is highlighted token by token
    assert "Cho, Kyunghyun" in cite and "and others" not in cite  # all 31 authors
    assert "@software{kluebook" in cite and "https://github.com/kluebook/kluebook" in cite
    for key in ("Devlin", "Conneau", "Lee", "Park"):
        assert key in cite


def test_no_page_has_a_serious_or_critical_accessibility_finding(site, base_url, browser):
    """axe-core on every kind of page, at 1366 and 400 px, light and dark: WCAG 2.1 AA."""
    require_axe()
    tasks = list(all_tasks())
    pages = accessibility.page_kinds(site, tasks)
    assert pages == accessibility.wanted_pages(site, tasks)  # every kind, each task's included
    findings = accessibility.audit(browser, base_url, pages)
    listed = sorted(
        f"{f['rule']} ({f['impact']}) on {f['kind']} at {f['width']} px, {f['mode']}: {f['target']}"
        for f in findings
    )
    assert not findings, f"{len(findings)} findings:\n" + "\n".join(listed)


# The focused element as the browser draws it: its start tag, and whether an outline or a
# shadow (the theme's focus rings) marks it.
FOCUSED = """() => {
  const e = document.activeElement, s = getComputedStyle(e);
  const ring = (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0)
               || s.boxShadow !== "none";
  return {tag: e.outerHTML.slice(0, 120), ring, inArticle: !!e.closest("main")};
}"""


def test_the_keyboard_skips_to_the_content_and_shows_where_the_focus_is(base_url, browser):
    visit = Visit(browser, base_url + "book/results.html")
    page = visit.page
    page.keyboard.press("Tab")  # the first stop: the skip link, shown once it has the focus
    skip = page.locator(".skip-link a")
    assert skip.evaluate("e => e === document.activeElement")
    assert "Skip to main content" in skip.inner_text() and skip.is_visible()
    assert page.evaluate(FOCUSED)["ring"]
    page.keyboard.press("Enter")
    assert urlsplit(page.url).fragment == "main-content"
    stops = []
    for _ in range(8):  # the next stops are in the content, each with a visible focus ring
        page.keyboard.press("Tab")
        stops.append(page.evaluate(FOCUSED))
    assert all(stop["inArticle"] for stop in stops), stops
    assert all(stop["ring"] for stop in stops), [s["tag"] for s in stops if not s["ring"]]
    visit.close()


def test_every_figure_has_a_text_alternative_and_every_table_headers_and_a_caption(site):
    problems = accessibility.unreadable(site)
    assert not problems, "\n".join(problems)


# What a page loads beyond the theme's shared assets (its HTML, data, images and the table
# library) may weigh at most this (#38).
PAGE_BUDGET = 1.5e6


def open_items(browser, url: str, viewport=LAPTOP, color_scheme="light") -> Visit:
    """A run page at `url` with its item browser set up by DataTables."""
    visit = Visit(browser, url, viewport, color_scheme)
    visit.page.locator("table#items.dataTable").wait_for(timeout=20_000)
    return visit


def add_condition(page, column: str, condition: str, value: str) -> None:
    """A SearchBuilder condition, set as a reader sets it."""
    page.locator(".dtsb-add").click()
    page.locator("select.dtsb-data").last.select_option(label=column)
    page.locator("select.dtsb-condition").last.select_option(label=condition)
    page.locator("select.dtsb-value").first.select_option(label=value)
    page.wait_for_timeout(300)  # SearchBuilder redraws the table


def shown_count(page) -> tuple[int, int]:
    """The items the table shows now, of all it holds (DataTables' own count)."""
    return tuple(
        page.evaluate(
            """() => { const t = document.getElementById("items");
        const rows = t.querySelectorAll("tbody tr:not(:has(td.dt-empty))").length;
        const info = document.getElementById("items_info").innerText.match(/of ([\\d,]+)/);
        return [rows, Number(info[1].replace(",", ""))]; }"""
        )
    )


def test_a_run_pages_item_browser_filters_shares_a_view_and_opens_a_permalink(
    site, base_url, browser
):
    url = base_url + run_page(site).relative_to(site).as_posix()
    visit = open_items(browser, url)
    page = visit.page
    assert page.locator("table#items caption").inner_text().startswith("The 60 dev items")
    assert shown_count(page) == (10, 60)  # the first page of every dev item
    guid = page.locator("#items tbody tr td:first-child a").first
    assert guid.get_attribute("href") == f"#{guid.get_attribute('id')}"  # its permalink
    # Wrong items only: the SearchBuilder condition correct = no.
    add_condition(page, "correct", "Equals", "no")
    rows, total = shown_count(page)
    cells = page.locator("#items tbody tr td:nth-child(5)").all_inner_texts()
    assert set(cells) == {"no"} and 0 < total < 60 and rows == min(10, total)
    # The address now holds the view: opened elsewhere, it shows the same items.
    assert urlsplit(page.url).fragment.startswith("items=")
    shared = open_items(browser, page.url)
    assert shown_count(shared.page) == (rows, total)
    shared.close()
    # An item's permalink opens the table on the page that holds it, the focus on the item.
    item = open_items(browser, url + "#item-ynat-v1_dev_00033")
    assert item.page.evaluate("document.activeElement.id") == "item-ynat-v1_dev_00033"
    assert "Showing 31 to 40 of 60" in item.page.locator("#items_info").inner_text()
    assert not visit.errors and not item.errors, visit.errors + item.errors
    item.close()
    visit.close()


def test_the_item_browsers_controls_work_with_the_keyboard(site, base_url, browser):
    visit = open_items(browser, base_url + run_page(site).relative_to(site).as_posix())
    page = visit.page
    search = page.locator("#items_wrapper input[type=search]")
    search.focus()
    page.keyboard.type("ynat-v1_dev_0001")
    page.wait_for_timeout(300)
    assert shown_count(page) == (10, 10)  # items 10 to 19
    page.locator(".dtsb-add").focus()
    page.keyboard.press("Enter")
    assert page.locator("select.dtsb-data").count() == 1
    page.locator("select.dtsb-data").focus()
    assert page.evaluate(FOCUSED)["ring"]
    search.fill("")
    page.wait_for_timeout(300)
    page.locator("#items_wrapper .dt-paging button.next").focus()
    page.keyboard.press("Enter")
    assert "Showing 11 to 20 of 60" in page.locator("#items_info").inner_text()
    visit.close()


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("viewport", [LAPTOP, NARROW], ids=["1366px", "400px"])
def test_the_item_browser_and_its_filter_controls_pass_axe(site, base_url, browser, viewport, mode):
    require_axe()
    url = base_url + run_page(site).relative_to(site).as_posix()
    visit = open_items(browser, url, viewport, mode)
    page = visit.page
    gold = page.locator("#items tbody td:nth-child(3)").first.inner_text()
    add_condition(page, "gold", "Equals", gold)  # its controls are on the page too
    page.add_script_tag(path=accessibility.AXE)
    findings = page.evaluate(accessibility.AXE_RUN, accessibility.WCAG_AA)
    assert not findings, findings
    visit.close()


def test_without_javascript_the_items_are_a_plain_table(site, base_url, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(base_url + run_page(site).relative_to(site).as_posix())
    fallback = page.locator("#items_fallback table")
    assert fallback.is_visible() and not page.locator("table#items").is_visible()
    assert fallback.locator("caption").inner_text().startswith("The 60 dev items")
    assert fallback.locator("tbody tr").count() == 10
    assert "correct" in fallback.locator("thead").inner_text()
    assert page.locator("#dev-items a.download").count() >= 3  # where every item is
    context.close()


def own_bytes(browser, url: str, ready: str) -> int:
    """What a page loads beyond the theme's shared assets, once `ready` (a selector) shows:
    its HTML, images, data, the table library and kluebook's own scripts (printed)."""
    page = browser.new_page(viewport=LAPTOP)
    sizes: dict[str, int] = {}
    page.on("requestfinished", lambda r: sizes.__setitem__(r.url, r.sizes()["responseBodySize"]))
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.locator(ready).first.wait_for(timeout=20_000)
    own = {
        url: size
        for url, size in sizes.items()
        if ("/_static/" not in url and not url.endswith("/searchindex.js"))
        or "/_static/itables/" in url
        or "/_static/kluebook-" in url
    }
    name = urlsplit(url).path.rsplit("/", 1)[-1]
    print(f"\n{name}: {sum(own.values()):,} bytes of its own (of {sum(sizes.values()):,})")
    for address, size in sorted(own.items(), key=lambda kv: -kv[1]):
        print(f"  {size:>9,}  {urlsplit(address).path.rsplit('/', 1)[-1][:60]}")
    assert any("/_static/itables/dt_bundle.js" in address for address in own)
    page.close()
    return sum(own.values())


def test_a_run_page_loads_under_its_weight_budget(site, base_url, browser):
    """A run page with its item browser (#38 allows 1.5 MB)."""
    url = base_url + run_page(site).relative_to(site).as_posix()
    assert own_bytes(browser, url, "table#items.dataTable") < PAGE_BUDGET


def test_the_pages_that_grow_with_the_dev_sets_load_under_the_weight_budget(
    site, base_url, browser
):
    """Each submission's page (an item browser per task, of dev sets as large as they come)
    and each task page with a side-by-side view (submissions on the whole dev file among its
    views where the dev files are here) stay within the budget of a page with an item browser."""
    generated = site / "book" / "_generated"
    pages = {p: "table.dataTable" for p in sorted((generated / "submissions").glob("*.html"))}
    assert len(pages) == 3  # the book's three baselines
    for task in sorted((generated / "tasks").glob("*.html")):
        if page_weight.SIDE_BY_SIDE in task.read_text(encoding="utf-8"):
            pages[task] = ".kluebook-side-by-side table.dataTable"
    assert len(pages) > 3
    for path, ready in pages.items():
        assert own_bytes(browser, base_url + path.relative_to(site).as_posix(), ready) < PAGE_BUDGET


def open_control_findings(browser, url: str, button: str) -> list[dict]:
    """axe-core's serious and critical findings on a page with the control `button` opened
    from the keyboard, in light and dark mode."""
    if not accessibility.AXE.exists():
        return []
    findings = []
    for mode in accessibility.MODES:
        page = browser.new_page(viewport=LAPTOP, color_scheme=mode)
        page.goto(url)
        page.wait_for_load_state("networkidle")
        page.locator(button).first.focus()
        page.keyboard.press("Enter")
        page.locator(".dtcc-dropdown").wait_for()
        page.add_script_tag(path=accessibility.AXE)
        findings += page.evaluate(accessibility.AXE_RUN, accessibility.WCAG_AA)
        page.close()
    return findings


def test_the_klue_table_filters_by_block_and_sorts_within_blocks_by_keyboard(base_url, browser):
    """With JavaScript the interactive KLUE table replaces the plain one: its Block column's
    filter (ColumnControl's list, opened and picked with the keyboard) keeps one block, and a
    metric column sorts within the blocks; a seed links to its run's item browser."""
    visit = Visit(browser, base_url + "book/results.html")
    page = visit.page
    table = page.locator("table#klue-table")
    table.locator("tbody tr").first.wait_for()
    assert page.locator("#klue-table_fallback").is_hidden()
    blocks = table.locator("tbody td.block").all_inner_texts()
    assert blocks[0] == "Published" and "Smoke, dev (generated)" in blocks
    block_filter = "#klue-table thead th.block .dtcc-button"
    assert not open_control_findings(browser, base_url + "book/results.html", block_filter)
    page.locator(block_filter).first.focus()
    page.keyboard.press("Enter")
    names = page.locator(".dtcc-dropdown .dtcc-button-text")  # each block's name in full
    assert names.evaluate_all("l => l.every(e => e.scrollWidth <= e.clientWidth + 1)")
    option = page.locator(".dtcc-dropdown .dtcc-button", has_text="Dev reference").first
    option.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    assert set(table.locator("tbody td.block").all_inner_texts()) == {"Dev reference"}
    assert table.locator("tbody tr:not(.dtrg-start)").count() == 9
    section = table.locator("tbody tr.dtrg-start")  # the block's section row, kept
    assert section.count() == 1 and section.inner_text().startswith("Dev reference: ")
    table.locator("thead th.metric .dt-column-order").first.focus()
    page.keyboard.press("Enter")  # sort by YNAT's Macro F1, within the block
    # The sort is drawn after the key's event: wait for the column to say it is sorted (a
    # loaded machine may draw later than the next line runs), then read the rows.
    table.locator("thead th.metric").first.and_(
        page.locator(".dt-ordering-asc, .dt-ordering-desc")
    ).wait_for()
    firsts = (
        "t => Array.from(t.tBodies[0].rows).filter(r => !r.classList.contains('dtrg-start'))"
        ".map(r => +r.querySelector('td.num').dataset.order)"
    )
    values = table.evaluate(firsts)
    assert len(values) == 9 and values in (sorted(values), sorted(values, reverse=True))
    link = page.locator("#klue-table_fallback a[href*='runs/ynat/']").first
    assert link.get_attribute("href").endswith("#items")
    assert not visit.errors, visit.errors
    visit.close()
    # Without JavaScript the plain table is the one shown, in its blocks.
    plain = browser.new_page(viewport=LAPTOP, java_script_enabled=False)
    plain.goto(base_url + "book/results.html")
    assert plain.locator("table#klue-table").is_hidden()
    assert plain.locator("#klue-table_fallback tbody.published tr:not(.section)").count() == 9
    assert plain.locator("#klue-table_fallback tbody.pipeline-check").is_visible()
    plain.close()


@pytest.fixture(scope="module")
def disagreeing_site(site, tmp_path_factory, kluebook) -> Path:
    """The smoke book rebuilt, executing nothing, after YNAT's seed 2 answered its first ten dev
    items with another topic: the tiny smoke models answer one topic whatever the seed, and the
    side-by-side view needs two runs that disagree."""
    source = site.parents[2]  # the book root: its html is in <root>/site/_build/html
    copy = tmp_path_factory.mktemp("disagreeing") / "book"
    root = Path(shutil.copytree(source, copy, ignore=shutil.ignore_patterns("site", ".cache")))
    path = next((root / "results" / "smoke" / "ynat").glob("*seed2.predictions.jsonl"))
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines[:10]:
        line["label"] = "정치" if line["label"] != "정치" else "경제"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    built = kluebook(root, "book", "--no-run", "--path-output", str(root / "site"))
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    return root / "site" / "_build" / "html"


def pick(page, select: str, index: int) -> None:
    """Choose option `index` of a select from the keyboard (focus, first option, arrow down)."""
    page.locator(select).focus()
    page.keyboard.press("Home")
    for _ in range(index):
        page.keyboard.press("ArrowDown")
    assert page.locator(select).input_value() == str(index)


def said_counts(page, view: str) -> tuple[int, ...]:
    """The 2x2 counts a view says: both right, only A, only B, both wrong."""
    text = page.locator(f"#{view} .side-by-side-counts").inner_text()
    found = re.search(
        r"both right (\d+), only A right (\d+), only B right (\d+), both wrong (\d+)", text
    )
    return tuple(int(n) for n in found.groups())


def test_a_task_page_shows_any_two_runs_side_by_side(disagreeing_site, browser):
    """The side-by-side view of a task page: two runs picked from the keyboard give the 2x2
    counts of the plain table of every pair and the list of every item they disagree on, with
    an item's key linking to A's item browser, or of the items both get wrong; the address
    keeps the pick and opens it again;
    without JavaScript the first pair is plain tables; axe-core finds nothing serious on the
    page with its pickers, at 1366 and 400 px, light and dark; the page stays under its budget."""
    with accessibility.served(disagreeing_site) as url:
        task_page = url + "book/_generated/tasks/ynat.html"
        visit = Visit(browser, task_page)
        page = visit.page
        views = page.evaluate(
            "() => Array.from(document.querySelectorAll('.kluebook-side-by-side'), v => "
            "[v.id, Array.from(v.querySelectorAll('select')[0].options, o => o.text)])"
        )
        view, names = next((v, n) for v, n in views if any("tiny-roberta" in x for x in n))
        first, second = (names.index(n) for n in names if "tiny-roberta" in n and "seed" in n)
        assert page.locator(f"#{view} .side-by-side-pick").is_visible()
        pick(page, f"#{view}-a", second)  # A: seed 2, whose first ten answers were changed
        pick(page, f"#{view}-b", first)
        both, only_a, only_b, neither = said_counts(page, view)
        assert both + only_a + only_b + neither == 60 and only_a + only_b > 0
        every_pair = page.evaluate(  # in a closed disclosure: its cells' text
            f"() => Array.from(document.querySelectorAll('#{view} table.agreement tbody tr'), "
            "r => Array.from(r.cells, c => c.textContent))"
        )
        row = next(r for r in every_pair if "seed 1" in r[0] and "seed 2" in r[1])
        assert tuple(int(n) for n in row[2:]) == (both, only_b, only_a, neither)
        items = page.locator(f"table#{view}-items tbody tr")
        assert items.count() == only_a + only_b
        cells = items.first.locator("td").all_inner_texts()
        assert cells[1] in ("A", "B") and cells[3] != cells[4]  # its right side; two predictions
        link = items.first.locator("a").get_attribute("href")
        assert "tiny-roberta" in link and "-seed2.html#item-" in link
        assert page.url.endswith(f"#{view}={second + 1},{first + 1}")
        shared = Visit(browser, page.url)  # the pick, opened from its address
        assert shared.page.locator(f"#{view}-a").input_value() == str(second)
        assert said_counts(shared.page, view) == (both, only_a, only_b, neither)
        shared.close()
        page.locator(f"#{view}-show").focus()  # the items both get wrong, instead
        page.keyboard.press("ArrowDown")
        assert page.url.endswith(f"#{view}={second + 1},{first + 1},both-wrong")
        assert items.count() == min(neither, 25)  # a page of 25
        assert set(page.locator(f"table#{view}-items tbody td:nth-child(2)").all_inner_texts()) <= {
            "neither"
        }
        assert f"of {neither} entries" in page.locator(f"#{view}-items_info").inner_text()
        # The 2x2 is a table: A right or wrong by B right or wrong.
        grid = page.locator(f"#{view} table.pair-counts tbody td").all_inner_texts()
        assert [int(n) for n in grid] == [both, only_a, only_b, neither]
        pick(page, f"#{view}-b", second)
        assert "two different runs" in page.locator(f"#{view} .side-by-side-counts").inner_text()
        assert page.url.endswith(f"#{view}={second + 1},{second + 1},both-wrong")  # the pick
        assert not visit.errors, visit.errors
        visit.close()
        plain = browser.new_page(viewport=LAPTOP, java_script_enabled=False)
        plain.goto(task_page)
        assert not plain.locator(f"#{view} .side-by-side-pick").is_visible()
        a, b, c, d = said_counts(plain, view)  # the first pair: seed 1, then seed 2
        assert (a, b, c, d) == (both, only_b, only_a, neither)
        assert plain.locator(f"table#{view}-items tbody tr").count() == only_a + only_b
        plain.close()
        if accessibility.AXE.exists():
            found = accessibility.audit(
                browser, url, {"side by side": "book/_generated/tasks/ynat.html"}
            )
            assert not found, found
        assert own_bytes(browser, task_page, f"table#{view}-items.dataTable") < PAGE_BUDGET
