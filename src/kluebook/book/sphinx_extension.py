"""Sphinx tweaks for the kluebook site (one of the package's two Sphinx extensions that
_config.yml loads, `sphinx.extra_extensions`; the other, `sphinx_hooks`, points the launch
buttons and keeps exercise labels unique).

- One copy of each script on a page, and MathJax only where a page has math.
- No thebe: Jupyter Book always loads sphinx-thebe, whose configuration (pointing at an
  unrelated Binder repository) nothing on this site uses; its hooks are disconnected.
- The repository URL is set once, as `repository.url` in _config.yml: `{{ repository_url }}`
  in a page's source (prose or code block) becomes it, so every link and install line follows.
- A banner on every page when the build holds smoke runs, saying what they are (which runs
  the build holds: the report's index of the run pages, `run_index`, made from the records).
- The page titles the theme writes unescaped (the printed page's heading, the sidebar's book
  title) escaped: a run's title holds names from outside (`escape_theme_titles`).
- One search box: the sidebar's (on a phone, the page header's button); the theme's top bar
  would add a second one on every desktop page.
- The `book-citation` directive: how to cite this book, from CITATION.cff.
- What assistive technology needs (WCAG 2.1 AA) where the theme or a writer falls short: a
  name for each expand toggle of the sidebar, the visible text as the name of a notebook
  cell's show/hide toggle, list items in the reference list, a text alternative for each
  figure a notebook cell draws and a caption for each table (see `name_the_nav_toggles`,
  `visit_hidden_cell`, `visit_citation`, `describe_notebook_figures` and `caption_tables`).
  The theme's templates that need it are overridden in book/_templates.

The HTML it writes (the banner, a hidden cell's toggle, a table's caption) is the template
`sphinx_extension.html` (`templating`).
"""

import ast
import re
from functools import cache
from pathlib import Path

import yaml
from bs4 import BeautifulSoup
from docutils import nodes
from markupsafe import Markup
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
from sphinx.util.docutils import SphinxDirective

from kluebook.book.run_index import PageRun, read_run_index
from kluebook.book.templating import parts
from kluebook.common.paths import PACKAGE
from kluebook.methods.registry import DEFAULT_METHOD, all_methods, method_named

REPOSITORY_PLACEHOLDER = "{{ repository_url }}"
# The start tag of an HTML table (in a raw HTML block: a notebook's DataFrame, the KLUE table).
TABLE_TAG = re.compile(r"<table\b[^>]*>")
# The extension's HTML.
TEMPLATE = "sphinx_extension.html"


def drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    """Keep one copy of each script of a page.

    Scripts that extensions add once the build has started (sphinx-togglebutton's selector)
    reach every page twice with Jupyter Book 1.0; a repeated `const` is a JavaScript error in
    every reader's console.
    """
    seen, kept = set(), []
    for script in context.get("script_files", []):
        attributes = getattr(script, "attributes", {})
        # One copy has the filename None, the other "": both mean an inline script.
        key = (getattr(script, "filename", script) or "", tuple(sorted(attributes.items())))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context["script_files"] = kept


def drop_mathjax_without_math(app, pagename, templatename, context, doctree):
    """Load MathJax only on pages with math.

    An extension asks Sphinx to put every asset on every page, so each page would fetch MathJax
    from its CDN: a needless request for every reader, and a failed one offline.
    """
    has_math = doctree is not None and any(
        True for _ in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block)))
    )
    if has_math:
        return
    context["script_files"] = [
        script
        for script in context.get("script_files", [])
        if "mathjax" not in (getattr(script, "filename", script) or "")
    ]


def disconnect_thebe(app) -> None:
    """Disconnect sphinx-thebe's hooks that put its scripts and configuration on every page."""
    for event in ("env-before-read-docs", "doctree-resolved"):
        for listener in list(app.events.listeners.get(event, [])):
            handler = listener.handler
            if getattr(handler, "__module__", "") == "sphinx_thebe" and handler.__name__ in (
                "init_thebe_core",
                "update_thebe_context",
            ):
                app.disconnect(listener.id)


def drop_thebe_styles(app, pagename, templatename, context, doctree):
    context["css_files"] = [
        css
        for css in context.get("css_files", [])
        if "thebe" not in (getattr(css, "filename", css) or "")
    ]


def repository_url(app) -> str:
    return (app.config.html_theme_options.get("repository_url") or "").rstrip("/")


def fill_repository_url(app, docname, source) -> None:
    """`source-read` handler: the configured repository URL in place of its placeholder."""
    if REPOSITORY_PLACEHOLDER in source[0]:
        source[0] = source[0].replace(REPOSITORY_PLACEHOLDER, repository_url(app))


def build_runs(app) -> list[PageRun]:
    """The runs whose pages this build holds, as the report's index says (`run_index`)."""
    found = getattr(app.env, "found_docs", set())
    return [run for page, run in read_run_index(Path(app.srcdir)).items() if page in found]


def run_profiles(runs: list[PageRun]) -> set[str]:
    """The profiles of the runs."""
    return {run.profile for run in runs}


def smoke_ways(runs: list[PageRun]) -> tuple[str, ...]:
    """How the smoke runs among the runs made their predictions, in the methods' own words and
    order (`Method.smoke_made`), the default method's always among them."""
    names = {run.method for run in runs if run.profile == "smoke"} | {DEFAULT_METHOD}
    return tuple(method.smoke_made for method in all_methods() if method.name in names)


def banner(profiles: set[str], link: str, ways: tuple[str, ...] = ()) -> str:
    """One sentence for the top of every page, or "" when the build holds no smoke run; `ways`
    how its smoke runs made their tiny models' predictions (`smoke_ways`; by default the
    default method's)."""
    if "smoke" not in profiles:
        return ""
    made = " or ".join(ways or (method_named(DEFAULT_METHOD).smoke_made,))
    return str(parts(TEMPLATE).banner(profiles == {"smoke"}, made, link))


def add_banner(app, pagename, templatename, context, doctree):
    """`html-page-context` handler: the banner (see `banner`) on every page."""
    # On the reproduce page itself, pathto gives "#": the link is then the anchor alone.
    page = context["pathto"]("book/reproduce").rstrip("#")
    link = page + "#the-real-reproduction-internet-and-a-gpu"
    runs = build_runs(app)
    text = banner(run_profiles(runs), link, smoke_ways(runs))
    if text:
        context["theme_announcement"] = text


def escape_theme_titles(app, pagename, templatename, context, doctree):
    """`html-page-context` handler: the titles sphinx-book-theme puts into its templates as
    plain text, unescaped (`pagetitle`, the printed page's heading; `root_title`, the sidebar's),
    escaped: a title is text, whatever name it holds (the other titles Sphinx renders escaped)."""
    for key in ("pagetitle", "root_title"):
        if key in context and not isinstance(context[key], Markup):
            context[key] = Markup.escape(context[key])


class BookCitation(SphinxDirective):
    """How to cite this book: a sentence and a BibTeX entry made from CITATION.cff, with the
    repository URL of the book's configuration."""

    has_content = False

    def run(self):
        path = Path(self.env.srcdir) / "CITATION.cff"
        self.env.note_dependency(str(path))
        cff = yaml.safe_load(path.read_text(encoding="utf-8"))
        authors = [
            a.get("name") or f"{a['given-names']} {a['family-names']}" for a in cff["authors"]
        ]
        year = str(cff.get("date-released", self.config.copyright))[:4]
        url = repository_url(self.env.app)
        sentence = (
            f"{' and '.join(authors)} ({year}). {cff['title']}, version {cff['version']} "
            f"[software], {cff['license']} licence. {url}"
        )
        bibtex = (
            "@software{kluebook,\n"
            f"  title   = {{{cff['title']}}},\n"
            f"  author  = {{{{{' and '.join(authors)}}}}},\n"
            f"  year    = {{{year}}},\n"
            f"  version = {{{cff['version']}}},\n"
            f"  license = {{{cff['license']}}},\n"
            f"  url     = {{{url}}}\n"
            "}"
        )
        block = nodes.literal_block(bibtex, bibtex, language="bibtex")
        return [nodes.paragraph(text=sentence), block]


def named_nav_toggles(html: str) -> str:
    """The sidebar's HTML with a name on each expand toggle (`<summary>`) that has none.

    Beside a page's link the theme puts a toggle holding only a chevron icon: a screen reader
    announces a nameless button. Each gets "Pages under <the link's text>".
    """
    soup = BeautifulSoup(html, "html.parser")
    for summary in soup.select("li.has-children > details > summary"):
        link = summary.find_parent("li").find("a", recursive=False)
        if link is not None and not summary.get_text(strip=True):
            summary["aria-label"] = f"Pages under {link.get_text(' ', strip=True)}"
    return str(soup)


def name_the_nav_toggles(app, pagename, templatename, context, doctree):
    """`html-page-context` handler: the theme's sidebar, with `named_nav_toggles` applied."""
    generate = context.get("generate_toctree_html")
    if generate is None:
        return

    def named(*args, **kwargs):
        return Markup(named_nav_toggles(str(generate(*args, **kwargs))))

    context["generate_toctree_html"] = named


def visit_hidden_cell(self, node):
    """A hidden cell's toggle, as myst-nb writes it but without its aria-label.

    myst-nb names every toggle "Toggle hidden content", which leaves out the text it shows
    ("Show code cell source"); without the label, the shown text is the name (WCAG 2.5.3).
    """
    toggle = parts(TEMPLATE).hidden_cell_toggle(
        " ".join(node["classes"]), node["prompt_show"], node["prompt_hide"]
    )
    self.body.append(str(toggle))


def visit_citation(self, node):
    """A reference of a bibliography as a list item of its list.

    Docutils gives each entry the role doc-biblioentry, deprecated in DPUB-ARIA 1.1: assistive
    technology then finds no item in the entries' `role="list"` (axe: aria-required-children).
    """
    type(self).visit_citation(self, node)
    self.body[-1] = self.body[-1].replace('role="doc-biblioentry"', 'role="listitem"')


def depart_citation(self, node):
    type(self).depart_citation(self, node)


def accessible_writers(app) -> None:
    """`builder-inited` handler: the writers of `visit_hidden_cell`, `visit_citation` and
    `visit_table`, in place of myst-nb's and Sphinx's (once every extension has set up)."""
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput))
    app.add_node(nodes.citation, override=True, html=(visit_citation, depart_citation))
    app.add_node(nodes.table, override=True, html=(visit_table, depart_table))


def figure_alt(source: str) -> str:
    """What the figure of a notebook cell shows, from the cell's code: the title it gives the
    figure, then the first sentence of the docstring of each figure function it calls, as
    `module.function(` ("" when it calls none; see `figure_docstrings`)."""
    docstrings = figure_docstrings()
    described = []
    for call in re.findall(r"\b(\w+\.\w+)\(", source):
        if call in docstrings:
            doc = docstrings[call].replace("\n", " ")
            described.append(re.split(r"(?<=\.)\s", doc)[0].rstrip("."))
    title = re.search(r"\btitle\s*=\s*(['\"])(.+?)\1", source)
    if title and described:
        described.insert(0, title.group(2))
    return ". ".join(filter(None, described)) + "." if described else ""


@cache
def figure_docstrings() -> dict[str, str]:
    """The docstring of each public function of the package's modules that draw with matplotlib
    (`kluebook.common.plots`, a task's own figures), keyed as a notebook
    calls it, `module.function`; read from the sources (importing them would load matplotlib and
    pandas into the build for nothing else)."""
    docstrings = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text) if "matplotlib" in text else None
        if tree is None or not draws(tree):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                docstrings[f"{path.stem}.{node.name}"] = ast.get_docstring(node) or ""
    return docstrings


def draws(tree: ast.Module) -> bool:
    """Whether the module `tree` imports matplotlib (anywhere in it)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] == "matplotlib" for name in names):
            return True
    return False


def describe_notebook_figures(app, doctree) -> None:
    """`doctree-read` handler: a figure a notebook cell draws gets `figure_alt` of the cell as
    its text alternative (myst-nb leaves it without one, and the HTML shows the file's path)."""
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        sources = [c for c in cell.findall(nodes.literal_block)]
        alt = figure_alt("\n".join(s.astext() for s in sources))
        for image in cell.findall(nodes.image):
            if alt and not image.get("alt"):
                image["alt"] = alt


def section_title(node) -> str:
    """The title of the section that holds `node` ("" outside any)."""
    section = node.parent
    while section is not None and not isinstance(section, nodes.section):
        section = section.parent
    return section[0].astext() if section is not None and section.children else ""


def caption_tables(app, doctree) -> None:
    """`doctree-read` handler: a caption for every table that has none, for screen readers.

    A table's caption is its name in a screen reader's list of tables. A table of the book
    stands under the heading that names it, so a table without a caption of its own gets the
    heading as one, visually hidden (the reader sees the heading right above), numbered when a
    section holds several (written by `visit_table`). Tables a notebook prints (pandas' HTML)
    are captioned the same way.
    """
    uncaptioned = [
        node
        for node in doctree.findall(lambda n: isinstance(n, nodes.table | nodes.raw))
        if (isinstance(node, nodes.table) and not isinstance(node[0], nodes.title))
        or (
            isinstance(node, nodes.raw)
            and TABLE_TAG.search(node.astext())
            and "<caption" not in node.astext()
        )
    ]
    by_section: dict[str, list] = {}
    for node in uncaptioned:
        by_section.setdefault(section_title(node), []).append(node)
    for title, tables in by_section.items():
        for number, node in enumerate(tables, 1):
            name = title or "Table"
            if len(tables) > 1:
                name += f" (table {number} of {len(tables)})"
            caption = str(parts(TEMPLATE).hidden_caption(name))
            if isinstance(node, nodes.table):
                node["hidden_caption"] = caption
                continue
            start = TABLE_TAG.search(node.astext()).end()
            text = node.astext()[:start] + caption + node.astext()[start:]
            node.replace_self(nodes.raw("", text, format=node["format"]))


def visit_table(self, node):
    """A table, with the caption `caption_tables` gave it (a docutils title would bring a
    permalink, a link nobody sees, into the keyboard's path)."""
    type(self).visit_table(self, node)
    self.body.append(node.get("hidden_caption", ""))


def depart_table(self, node):
    type(self).depart_table(self, node)


def one_search_box(app, config) -> None:
    """`config-inited` handler: nothing in the theme's top bar (its default is a search field)."""
    config.html_theme_options["navbar_persistent"] = []


def setup(app):
    disconnect_thebe(app)
    app.connect("config-inited", one_search_box)
    app.connect("builder-inited", accessible_writers)
    app.connect("doctree-read", describe_notebook_figures)
    app.connect("doctree-read", caption_tables)
    app.connect("source-read", fill_repository_url)
    app.add_directive("book-citation", BookCitation)
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    app.connect("html-page-context", drop_mathjax_without_math, priority=901)
    app.connect("html-page-context", drop_thebe_styles, priority=902)
    app.connect("html-page-context", add_banner, priority=903)
    app.connect("html-page-context", name_the_nav_toggles, priority=904)
    app.connect("html-page-context", escape_theme_titles, priority=905)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
