"""The submissions in the built site, opened in headless Chromium: a book of a committed
baseline and of a hostile submission (tests/support/hostile_submission.py: its model name,
training data, tool and predicted labels carry `<script>`, `"onmouseover=`, `<img onerror>` and a
Markdown `javascript:` link) is built with `kluebook book --no-run`. On every page the
submissions reach (the results page's KLUE table, their task's page and its table, each
submission's page with its item browser, the sidebar) no dialog opens, no element, attribute
or link of theirs exists, the hostile name is shown as the text it is, and axe-core finds no
serious or critical WCAG 2.1 AA violation at 1366 and 400 px, light and dark.

Needs Debian's `chromium` and the `playwright` package (no browser download), as
test_site_in_browser.py does; axe-core from npm for the audit (`npm ci`)."""

import shutil

import pytest
from support import hostile_submission as hostile
from support.chromium import accessibility, chromium, require_axe, require_chromium, visible, walk

from kluebook.common.paths import CHECKOUT

pytestmark = pytest.mark.slow

BASELINE = "next-eojeol-baseline"  # a committed baseline (one task: a small page)
# What the submission would leave on a page if it were read as markup.
INJECTED = """() => {
  const found = [];
  for (const e of document.querySelectorAll('*')) {
    for (const a of e.attributes) {
      if (a.name.startsWith('on') && /alert\\(/.test(a.value)) found.push(`${e.tagName} ${a.name}`);
    }
    const href = e.tagName === 'A' ? e.getAttribute('href') || '' : '';
    if (/^\\s*javascript:/i.test(href)) found.push(`link ${href}`);
    // A script of the names' own, or their markup unescaped in a script's data (escaped, as
    // `&lt;img ...`, it is text the item browser's table shows).
    if (e.tagName === 'SCRIPT' && /<(script|img)[^<>]*alert\\(/i.test(e.textContent))
      found.push('script');
    if (e.tagName === 'IMG' && /\\/x$/.test(e.src)) found.push(`img ${e.src}`);
    if (e.tagName === 'B' && e.textContent === 'bold') found.push('raw html');
  }
  return found;
}"""
PAGES = {
    "results": "book/results.html",
    "DP task": "book/_generated/tasks/dp.html",  # its task's KLUE table
    "hostile submission": f"book/_generated/submissions/{hostile.SLUG}.html",
    "baseline submission": f"book/_generated/submissions/{BASELINE}.html",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory, new_book, kluebook):
    """The html folder of the book of a baseline and the hostile submission."""
    require_chromium()
    tmp = tmp_path_factory.mktemp("submissions")
    root = new_book(tmp / "book")
    shutil.rmtree(root / "submissions")  # one baseline beside the hostile submission
    shutil.copytree(CHECKOUT / "submissions" / BASELINE, root / "submissions" / BASELINE)
    (root / "submissions" / "_derived").mkdir(parents=True)
    name = f"{BASELINE}.json"
    shutil.copy(CHECKOUT / "submissions" / "_derived" / name, root / "submissions" / "_derived")
    hostile.write_submission(root)
    # No dev files: the board as an offline build shows it (its committed records).
    offline = {"KLUEBOOK_DATA_DIR": str(tmp / "no-data")}
    built = kluebook(root, "book", "--no-run", "--path-output", str(tmp / "site"), env=offline)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return tmp / "site" / "_build" / "html"


def test_every_page_a_submission_reaches_shows_it_as_text_and_runs_no_script_of_its(site):
    rows = {}
    with accessibility.served(site) as base_url, chromium() as browser:
        tab = browser.new_page(viewport={"width": 1366, "height": 900})

        def look(page: str) -> None:
            if page == PAGES["results"]:  # the interactive table's submitted block
                tab.wait_for_selector("table.klue-table.dataTable")
                rows[page] = tab.locator("table.dataTable tr.submitted").count()
                heads = tab.locator("table.dataTable tr.submitted th.model")
                fits = "l => l.every(e => e.scrollWidth <= e.clientWidth + 1)"
                assert heads.evaluate_all(fits), "a submitted name runs out of its cell"
            if page == PAGES["hostile submission"]:  # its items, drawn by DataTables
                tab.wait_for_selector("#items-dp_wrapper")
                rows[page] = tab.locator("#items-dp tbody tr").count()

        walked = walk(tab, base_url, PAGES.values(), INJECTED, look)
        tab.screenshot(path=str(site.parent / "hostile-1366.png"), full_page=False)
    texts = walked.texts
    assert walked.dialogs == [], walked.dialogs
    assert walked.found == {}, walked.found
    name = visible(hostile.MODEL)
    for page in PAGES.values():
        if page != PAGES["baseline submission"]:
            assert name in texts[page], page  # the table's row, the page's title and heading
    assert visible(hostile.LABEL) in texts[PAGES["hostile submission"]]  # a predicted label
    assert "recomputed from predictions" in texts[PAGES["results"]]
    assert rows == {PAGES["results"]: 2, PAGES["hostile submission"]: 3}


def test_the_submission_pages_and_their_table_pass_axe(site):
    require_axe()
    with accessibility.served(site) as base_url, chromium() as browser:
        findings = accessibility.audit(browser, base_url, PAGES)
    listed = sorted(
        f"{f['rule']} ({f['impact']}) on {f['kind']} at {f['width']} px, {f['mode']}: {f['target']}"
        for f in findings
    )
    assert not findings, f"{len(findings)} findings:\n" + "\n".join(listed)
