"""Headless Chromium for the browser tests: Debian's `chromium` (KLUEBOOK_CHROMIUM names another)
driven by the `playwright` package of the dev extra, never Playwright's own browser download;
axe-core from npm (`npm ci`) for the audits; the skips where one of them is missing; and a walk
over a site's pages in one tab that records every dialog, what a page script finds on each page
and each page's visible text (the hostile-input tests)."""

import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
from conftest import load_script

from kluebook.common.paths import CHECKOUT

CHROMIUM = next(
    filter(
        None,
        [
            os.environ.get("KLUEBOOK_CHROMIUM"),
            shutil.which("chromium"),
            shutil.which("chromium-browser"),
        ],
    ),
    None,
)
# benchmarks/accessibility.py: the axe-core audit of a site and the site's HTTP server, the same
# here as on the command line.
accessibility = load_script(CHECKOUT / "benchmarks" / "accessibility.py")


def require_chromium() -> None:
    """Skip the test unless Chromium and Playwright are both installed."""
    if CHROMIUM is None:
        pytest.skip(
            "no Chromium found: install Debian's chromium and fonts-noto-cjk (.ci/run does)"
        )
    pytest.importorskip("playwright.sync_api", reason="playwright (the dev extra) is not installed")


def require_axe() -> None:
    """Skip the test unless axe-core is installed."""
    if not accessibility.AXE.exists():
        pytest.skip("axe-core is not installed: run `npm ci` in the repository (.ci/run does)")


@contextmanager
def chromium() -> Iterator:
    """A headless Chromium (a Playwright `Browser`), closed after use."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def visible(text: str) -> str:
    """Text as a reader sees it: every run of whitespace one space."""
    return " ".join(text.split())


@dataclass
class Walk:
    """What opening a site's pages one after another found: each dialog (`page: message`),
    per page what the page script found (where it found anything) and the visible text (the
    tab's title, then the body)."""

    dialogs: list[str] = field(default_factory=list)
    found: dict[str, list] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)


def walk(
    tab, base_url: str, pages: Iterable[str], script: str, look: Callable[[str], None] | None = None
) -> Walk:
    """Open each page (a path under `base_url`) in `tab` until the network is idle, dismissing
    and recording every dialog; `script` (JavaScript returning a list) is evaluated on each,
    and `look(page)` takes a test's own look at it."""
    walked, opened = Walk(), []
    tab.on("dialog", lambda d: (walked.dialogs.append(f"{opened[-1]}: {d.message}"), d.dismiss()))
    for page in pages:
        opened.append(page)
        tab.goto(base_url + page)
        tab.wait_for_load_state("networkidle")
        if found := tab.evaluate(script):
            walked.found[page] = found
        walked.texts[page] = visible(f"{tab.title()} {tab.inner_text('body')}")
        if look is not None:
            look(page)
    return walked
