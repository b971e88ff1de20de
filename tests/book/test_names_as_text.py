"""A name from outside is text on a page and never shapes a file name: `myst.text`,
`myst.code`, `myst.code_block` and `myst.doc_link` put any string into MyST Markdown as the text
it is (read back here by the book's own MyST parser, with its extensions), and `paths.file_name`
keeps today's names and maps any other to safe characters and a hash. The built site, opened in
a browser with such names, is tests/end_to_end/test_hostile_names.py."""

import re
from html.parser import HTMLParser

import pytest
import yaml
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

from kluebook.book import model_index
from kluebook.book.myst import code, code_block, doc_link, list_table, text
from kluebook.common.paths import CHECKOUT, CONFIGS, file_name
from kluebook.running import run_plan
from kluebook.training.checkpoints import model_slug

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"onmouseover=alert(1)',
    "[x](javascript:alert(1))",
    "![x](javascript:alert(1))",
    "{eval-rst}`.. raw:: html`",
    "```{raw} html\n<b>bold</b>\n```",
    ":::{raw} html\n<i>x</i>\n:::",
    "{{ substitution }} $x^2$ *emphasis* _emphasis_ **strong**",
    "&lt;b&gt; &amp; &#60;",
    "- a list\n1. a numbered one",
    "# a heading",
    "> a quote",
    "% a comment",
    "| a | table |",
    "`a``b```",
    "back\\slash\\",
    "  spaced  ",
    "<http://example.com> https://example.com",
]
# Names of today's runs: file names and the text of their pages stay as they were.
TODAY = ["kluebook/tiny-roberta", "klue/roberta-base", "Qwen/Qwen2.5-7B-Instruct"]


@pytest.fixture(scope="module")
def myst():
    """Markdown to HTML as the book's MyST parser reads it, with the book's extensions."""
    with open(CHECKOUT / "_config.yml", encoding="utf-8") as handle:
        extensions = yaml.safe_load(handle)["parse"]["myst_enable_extensions"]
    return create_md_parser(MdParserConfig(enable_extensions=set(extensions)), RendererHTML)


class Elements(HTMLParser):
    """The tags and the text of an HTML fragment."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.parts = [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.parts.append(data)

    @property
    def text(self) -> str:
        return " ".join("".join(self.parts).split())


def shown(value: str) -> str:
    """The text a reader should see: the value on one line, spaces collapsed as HTML does."""
    return " ".join(value.split())


@pytest.mark.parametrize("value", HOSTILE + TODAY)
def test_text_is_read_back_as_the_text_it_is_in_a_paragraph_a_heading_and_a_table(myst, value):
    paragraph = Elements(myst.render(f"Run of {text(value)}, seed 1"))
    assert paragraph.tags == ["p"], paragraph.tags
    assert paragraph.text == shown(f"Run of {value.strip()}, seed 1")
    heading = Elements(myst.render(f"# {text(value)}\n\nafter"))
    assert heading.tags == ["h1", "p"] and heading.text == shown(f"{value} after")
    # Alone in a cell of a list-table: the lines of its body, a list of lists.
    table = list_table([], [["Model", text(value)]], [20, 80])
    cell = Elements(myst.render(table.split("\n\n", 1)[1].removesuffix("```\n")))
    assert cell.tags == ["ul", "li", "ul", "li", "li"], cell.tags
    assert cell.text == shown(f"Model {value}")


@pytest.mark.parametrize("value", HOSTILE + TODAY)
def test_code_is_one_code_span_holding_the_value(myst, value):
    found = Elements(myst.render(f"model {code(value)} here"))
    assert found.tags == ["p", "code"]
    assert found.text == shown(f"model {value} here")


@pytest.mark.parametrize("value", HOSTILE + TODAY)
def test_a_code_block_holds_the_value_on_one_line_and_nothing_after_it(myst, value):
    found = Elements(myst.render(code_block(value, "bash") + "after"))
    assert found.tags == ["pre", "code", "p"]
    assert found.text == shown(f"{value} after")


@pytest.mark.parametrize("value", HOSTILE + TODAY)
def test_a_link_names_its_page_and_shows_the_title_as_text(myst, value):
    tokens = myst.parseInline(doc_link(value, "book/runs/nli/x"))[0].children
    assert [t.type for t in tokens] == ["link_open", "text", "link_close"]
    assert tokens[0].attrs == {"href": "/book/runs/nli/x"}
    assert tokens[1].content == value.strip().replace("\n", " ") or not value.strip()


def test_todays_names_are_unchanged_by_text():
    for name in [*TODAY, "kluebook/tiny-roberta, smoke, train_limit=300, seed 1"]:
        assert text(name) == name


def test_todays_file_names_stay_and_any_other_name_becomes_safe_characters_and_a_hash():
    assert [model_slug(name) for name in TODAY] == [
        "kluebook--tiny-roberta",
        "klue--roberta-base",
        "Qwen--Qwen2.5-7B-Instruct",
    ]
    for config in ["prompted,server,dev_limit=4,mode=generate,shots=2", "learning_rate=0.0005"]:
        assert file_name(config) == config
    names = [*HOSTILE, "한국어-모델", "../../etc/passwd", ".hidden", "a b", "a_b"]
    mapped = [file_name(name) for name in names]
    assert len(set(mapped)) == len(names)  # a hash of the whole name keeps them apart
    for name, safe in zip(names, mapped, strict=True):
        assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._,=+-]*", safe), (name, safe)
        assert len(safe) <= 70 and file_name(name) == safe  # short, and the same every time
    assert file_name("<img src=x onerror=alert(1)>") == "img_src=x_onerror=alert_1-63b586b4"


def test_a_run_of_a_hostile_model_and_setting_has_a_file_name_of_safe_characters():
    (spec,) = run_plan.plan(
        tasks=["nli"],
        seeds=[1],
        models=["<img src=x onerror=alert(1)>"],
        extra={"shots": 0},
        matrix_path=CONFIGS / "sweeps" / "prompted-smoke.yaml",
    )
    # A template of that name would be refused unless a task folder holds one (a user's task).
    spec = spec.but(extra={**spec.extra, "template": "[x](javascript:alert(1))"})
    for path in (spec.record_path, spec.notebook_path, spec.output_dir, spec.lock_path):
        assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._,=+-]*", path.name), path
    # The configuration keeps the name as it is: the pages show it as text.
    assert spec.config == "prompted,dev_limit=20,shots=0,template=[x](javascript:alert(1))"


def test_a_model_index_snippet_holds_a_name_on_many_lines_as_one_name():
    snippet = model_index.snippet("evil\nmodel-index: [pwned]", [])
    card = yaml.safe_load(snippet)
    assert card["model-index"][0]["name"] == "evil\nmodel-index: [pwned]"
    assert snippet.splitlines()[0].startswith("# model-index of evil model-index: [pwned],")
