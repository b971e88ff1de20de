"""The book's own Sphinx extension (kluebook.book.sphinx_extension): the smoke banner says what a
build holds (read from the report's index of the run pages, never from their addresses), the
repository URL of the configuration fills every page's placeholder, no
hand-written page spells the URL out, each figure a notebook draws gets a text alternative and
each sidebar toggle a name, and the titles the theme writes unescaped are escaped (the built
site's audit is tests/end_to_end/test_site_in_browser.py)."""

import json
import re
from dataclasses import asdict
from types import SimpleNamespace

from kluebook.book import sphinx_extension as extension
from kluebook.book.run_index import INDEX, PageRun
from kluebook.common.paths import CHECKOUT
from kluebook.methods.fine_tuned import FINE_TUNED
from kluebook.methods.prompted import PROMPTED


def test_the_banner_names_smoke_runs_and_links_to_real_numbers():
    only = extension.banner({"smoke"}, "reproduce.html#x")
    assert "smoke runs only" in only and "randomly initialised" in only
    assert 'href="reproduce.html#x"' in only
    mixed = extension.banner({"smoke", "paper"}, "r.html")
    assert "paper runs" in mixed and "smoke runs" in mixed
    assert extension.banner({"paper"}, "r.html") == ""
    assert extension.banner(set(), "r.html") == ""


def book_with_runs(root, runs: dict[str, PageRun], docs: set[str]):
    """A Sphinx app over the book at `root`, whose report indexed `runs` (docname -> run) and
    whose build found `docs`."""
    index = root / INDEX
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_text(json.dumps({d: asdict(r) for d, r in runs.items()}), encoding="utf-8")
    return SimpleNamespace(srcdir=str(root), env=SimpleNamespace(found_docs=docs))


def test_run_profiles_come_from_the_records_of_the_run_pages_of_the_build(tmp_path):
    runs = {
        "book/runs/ynat/smoke-kluebook--tiny-roberta-seed1": PageRun("ynat", "smoke", FINE_TUNED),
        "book/runs/dp/paper-klue--roberta-base-seed2": PageRun("dp", "paper", FINE_TUNED),
        # A page the report indexed that this build does not hold (left out of the toc).
        "book/runs/dp/gone-seed1": PageRun("dp", "other", FINE_TUNED),
        # A page's name says nothing: a run of the paper profile whose model is named "smoke-…".
        "book/runs/nli/smoke-x-seed1": PageRun("nli", "paper", FINE_TUNED),
    }
    docs = {"book/intro", *list(runs)[:2], "book/runs/nli/smoke-x-seed1"}
    app = book_with_runs(tmp_path, runs, docs)
    assert extension.run_profiles(extension.build_runs(app)) == {"smoke", "paper"}
    # Before any report, no run: no banner.
    empty = SimpleNamespace(srcdir=str(tmp_path / "none"), env=SimpleNamespace(found_docs=docs))
    assert extension.build_runs(empty) == []


def test_the_banner_says_smoke_runs_were_prompted_where_the_build_has_prompted_ones(tmp_path):
    fine_tuned = "book/runs/ynat/smoke-kluebook--tiny-roberta-seed1"
    prompted = "book/runs/nli/smoke-kluebook--tiny-qwen3-prompted,dev_limit=20,shots=5-seed1"
    runs = {fine_tuned: PageRun("ynat", "smoke", FINE_TUNED)}
    app = book_with_runs(tmp_path, runs, {"book/intro", fine_tuned})
    assert extension.smoke_ways(extension.build_runs(app)) == ("fine-tuned",)
    assert "model fine-tuned on generated data" in extension.banner({"smoke"}, "r.html")
    app = book_with_runs(
        tmp_path, {**runs, prompted: PageRun("nli", "smoke", PROMPTED)}, {fine_tuned, prompted}
    )
    assert extension.smoke_ways(extension.build_runs(app)) == ("fine-tuned", "prompted")
    app = book_with_runs(
        tmp_path, {**runs, prompted: PageRun("nli", "paper", PROMPTED)}, {fine_tuned, prompted}
    )
    # A paper run is no pipeline check.
    assert extension.smoke_ways(extension.build_runs(app)) == ("fine-tuned",)
    text = extension.banner({"smoke"}, "r.html", ("fine-tuned", "prompted"))
    assert "smoke runs only" in text and "model fine-tuned or prompted on generated data" in text


def test_the_banner_link_is_an_attribute_and_a_hidden_cells_toggle_escapes_its_text():
    text = extension.banner({"smoke"}, 'r.html#a"b')
    assert 'href="r.html#a&#34;b"' in text
    self = SimpleNamespace(body=[])
    node = {"classes": ["tag_hide-input"], "prompt_show": "Show <code>", "prompt_hide": "Hide"}
    extension.visit_hidden_cell(self, node)
    assert "".join(self.body) == (
        '<details class="admonition hide tag_hide-input">\n<summary>\n'
        '<p class="collapsed admonition-title">Show &lt;code&gt;</p>\n'
        '<p class="expanded admonition-title">Hide</p>\n</summary>\n'
    )


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


def notebook_cells() -> list[str]:
    return [
        "".join(cell["source"])
        for path in sorted((CHECKOUT / "notebooks").glob("*.ipynb"))
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    ]


def test_every_figure_a_notebook_draws_gets_a_text_alternative_saying_what_it_shows():
    figures = extension.figure_docstrings()
    assert {"plots.training_curve", "display.dependency_arcs"} <= figures.keys()
    cells = [s for s in notebook_cells() if any(f"{call}(" in s for call in figures)]
    assert len(cells) >= 19  # two figures or more in each of the eight notebooks, DP's arcs
    for source in cells:
        alt = extension.figure_alt(source)
        assert len(alt) > 30 and "`" not in alt and "plots" not in alt, (source, alt)
    alt = extension.figure_alt('plots.label_distribution(splits, LABELS, title="Topics")')
    assert alt == "Topics. Side-by-side bars: the share of each label in each split."
    alt = extension.figure_alt("display.dependency_arcs(words, heads, deprels)")
    assert alt.startswith("An arc diagram of a dependency tree: gold arcs above the words")
    assert extension.figure_alt("print(result)") == ""
    assert extension.figure_alt("frame.plot(x)") == ""  # pandas draws it: nothing says what


def test_notebooks_draw_only_with_the_figure_functions_and_give_tables_header_cells():
    """A figure drawn in the cell itself (pandas' `.plot`, pyplot) would reach the site with no
    text alternative, and an HTML table without header cells is a grid to a screen reader."""
    for source in notebook_cells():
        assert not re.search(r"\.plot\b|\bplt\.|\bax\.", source), source
        for table in re.findall(r"<table\b.*?</table>", source, flags=re.DOTALL):
            assert re.search(r"<th[\s>]", table), source


def test_each_sidebar_toggle_is_named_after_the_page_it_opens():
    html = (
        '<ul><li class="toctree-l1 has-children"><a class="reference" href="y.html">YNAT — '
        "results and runs</a><details><summary><span><i></i></span></summary><ul></ul>"
        '</details></li><li class="has-children"><details><summary><p class="caption">Part'
        "</p></summary></details></li></ul>"
    )
    named = extension.named_nav_toggles(html)
    assert '<summary aria-label="Pages under YNAT — results and runs">' in named
    assert "<summary><p" in named  # a toggle that shows its own text keeps it as its name


def test_the_titles_the_theme_writes_unescaped_are_escaped_once():
    title = 'NLI: <img src=x onerror=alert(1)> "a" & b, seed 1'
    context = {"pagetitle": title, "root_title": "kluebook: KLUE, reproduced"}
    for _ in range(2):  # a second pass leaves them as they are
        extension.escape_theme_titles(None, "book/runs/nli/x", "page.html", context, None)
    assert context["pagetitle"] == (
        "NLI: &lt;img src=x onerror=alert(1)&gt; &#34;a&#34; &amp; b, seed 1"
    )
    assert context["root_title"] == "kluebook: KLUE, reproduced"
