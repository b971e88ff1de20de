"""The book's own Sphinx extension (book/_ext/kluebook_sphinx.py): the smoke banner says what a
build holds, the repository URL of the configuration fills every page's placeholder, and no
hand-written page spells the URL out."""

import importlib.util
from types import SimpleNamespace

from kluebook.paths import CHECKOUT

spec = importlib.util.spec_from_file_location(
    "kluebook_sphinx", CHECKOUT / "book" / "_ext" / "kluebook_sphinx.py"
)
extension = importlib.util.module_from_spec(spec)
spec.loader.exec_module(extension)


def test_the_banner_names_smoke_runs_and_links_to_real_numbers():
    only = extension.banner({"smoke"}, "reproduce.html#x")
    assert "smoke runs only" in only and "randomly initialised" in only
    assert 'href="reproduce.html#x"' in only
    mixed = extension.banner({"smoke", "paper"}, "r.html")
    assert "paper runs" in mixed and "smoke runs" in mixed
    assert extension.banner({"paper"}, "r.html") == ""
    assert extension.banner(set(), "r.html") == ""


def test_run_profiles_come_from_the_run_pages_of_the_build():
    docs = {"book/intro", "book/runs/ynat/smoke-kluebook--tiny-roberta-seed1"}
    docs |= {"book/runs/dp/paper-klue--roberta-base-seed2"}
    app = SimpleNamespace(env=SimpleNamespace(found_docs=docs))
    assert extension.run_profiles(app) == {"smoke", "paper"}


def test_the_configured_repository_url_fills_the_placeholder():
    app = SimpleNamespace(
        config=SimpleNamespace(html_theme_options={"repository_url": "https://example.org/a/b/"})
    )
    source = ["git clone {{ repository_url }} kluebook\npip install git+{{ repository_url }}"]
    extension.fill_repository_url(app, "book/reproduce", source)
    assert source[0] == (
        "git clone https://example.org/a/b kluebook\npip install git+https://example.org/a/b"
    )


def test_no_hand_written_page_spells_out_the_repository_url():
    pages = sorted((CHECKOUT / "book").glob("*.md"))
    assert pages
    spelled = [p.name for p in pages if "github.com/kluebook" in p.read_text(encoding="utf-8")]
    assert not spelled
