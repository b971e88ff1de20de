"""The book's pages and the task cards it shows cite the tests that check what they say
(`tasks/dp/test_dp_parser.py::name`): every cited file and test exists, so a moved or renamed test
cannot leave a page pointing at nothing."""

import re

from kluebook.common.paths import ROOT

CITED = re.compile(r"`((?:[\w]+/)*test_\w+\.py)?(?:::(\w+))?`")


def citations() -> list[tuple[str, str, str | None]]:
    """(page, test file, test name or None) for every test a page of the book cites; a bare
    `::name` is a test of the file cited last on its line."""
    found = []
    pages = [
        *(ROOT / "book").glob("*.md"),
        *(ROOT / "src" / "kluebook" / "tasks").glob("*/README.md"),
    ]
    for page in sorted(pages):
        for line in page.read_text(encoding="utf-8").splitlines():
            last = None
            for match in CITED.finditer(line):
                path, name = match.groups()
                last = path or last
                if last and (path or name):
                    found.append((page.relative_to(ROOT).as_posix(), last, name))
    return found


def test_the_book_cites_tests():
    assert len({path for _, path, _ in citations()}) > 10  # the protocol page's table among them


def test_every_test_a_page_cites_exists():
    missing = []
    for page, path, name in citations():
        test_file = ROOT / "tests" / path
        if not test_file.is_file():
            missing.append(f"{page}: {path}")
        elif name and not re.search(rf"^\s*def {name}\(", test_file.read_text(), re.MULTILINE):
            missing.append(f"{page}: {path}::{name}")
    assert missing == []
