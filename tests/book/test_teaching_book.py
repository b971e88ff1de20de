"""The book a teacher hands out (the session's shared smoke book, `smoke_site`, with two YNAT
runs): every task page has Colab and Binder buttons that open notebooks/<task>.ipynb (a file of
the repository), each run page ends with three exercises and collapsed solutions (labels unique
per run), the install cell is not shown, and the Korean summaries, glossary and course page are
in the HTML."""

import re

import pytest

from kluebook.common.paths import CHECKOUT
from kluebook.tasks import all_tasks

pytestmark = pytest.mark.slow
LINK = re.compile(r'href="(https://(?:colab\.research\.google\.com|mybinder\.org)/[^"]+)"')


@pytest.fixture(scope="module")
def html(smoke_site):
    """The html folder of the smoke book, read only."""
    return smoke_site


def run_pages(html):
    pages = sorted((html / "book" / "runs" / "ynat").glob("*.html"))
    assert len(pages) == 2
    return [page.read_text() for page in pages]


def test_launch_buttons_open_the_task_notebook_of_the_repository(html):
    pages = {
        f"methods/{task}": html / f"book/_generated/methods/{task}.html" for task in all_tasks()
    }
    pages |= {f"run {i}": text for i, text in enumerate(run_pages(html))}
    for name, page in pages.items():
        text = page if isinstance(page, str) else page.read_text()
        task = "ynat" if name.startswith("run") else name.split("/")[1]
        links = sorted(set(LINK.findall(text)))
        assert links == [
            "https://colab.research.google.com/github/kluebook/kluebook/blob/main/"
            f"notebooks/{task}.ipynb",
            f"https://mybinder.org/v2/gh/kluebook/kluebook/main?urlpath=lab/tree/notebooks/{task}.ipynb",
        ], name
        assert (CHECKOUT / "notebooks" / f"{task}.ipynb").is_file()
    assert not LINK.findall((html / "book" / "results.html").read_text())


def test_run_pages_end_with_exercises_and_collapsed_solutions(html):
    ids = []
    for text in run_pages(html):
        assert text.count('class="exercise admonition"') == 3
        assert text.count('class="solution dropdown admonition"') == 3
        assert "Solution to" in text and "%pip install" not in text
        ids += re.findall(r'class="exercise admonition" id="([^"]+)"', text)
    assert len(ids) == len(set(ids)) == 6


def test_korean_is_marked_and_the_glossary_and_course_are_built(html):
    for task in all_tasks():
        methods = (html / f"book/_generated/methods/{task}.html").read_text()
        assert '<div class="docutils container" lang="ko">' in methods, task
        assert "요약." in methods and "glossary.html#term-" in methods, task
    glossary = (html / "book" / "glossary.html").read_text()
    for term in ("어절", "형태소", "개체명", "의존 구문 분석", "대화 상태 추적", "기계 독해"):
        assert f'<span lang="ko">{term}</span>' in glossary, term
    course = (html / "book" / "course.html").read_text()
    assert 'lang="ko"' in course
    assert "kluebook report" in re.sub(r"<[^>]+>", "", course)  # code spans split words
