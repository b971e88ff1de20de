"""The book's HTML is Jinja2 templates rendered with autoescaping (`kluebook.book.templating`):
a value a template is handed is text, whatever it holds, unless a template made it; a name the
template does not know is an error, never an empty string; and no module of the book writes
HTML in a Python string."""

import ast
import re
from types import SimpleNamespace

import pytest
from jinja2 import UndefinedError

from kluebook.book import templating
from kluebook.common.paths import PACKAGE

HOSTILE = "<img src=x onerror=alert(1)> \"a\" & 'b'"
# An HTML tag in a string: `<td`, `<a href`, `</span>`, `<br>`; and the target of a MyST role,
# which is no tag ({ref}`its page <task-nli>`, {doc}`results </book/results>`).
TAG = re.compile(r"</?[a-z][a-z0-9]*(?=[\s>/])")
ROLE_TARGET = re.compile(r"<[^<>`\s]*>`")


def html_strings(path) -> list[tuple[int, str]]:
    """The string literals of a module (f-strings included) that hold an HTML tag, but for
    docstrings and the patterns of `re.compile` (which read other libraries' HTML)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skipped.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "compile":
            skipped.update(id(arg) for arg in node.args)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):  # its parts are read with it
            skipped.update(id(part) for part in ast.walk(node) if part is not node)
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped or not isinstance(node, ast.Constant | ast.JoinedStr):
            continue
        parts = [node] if isinstance(node, ast.Constant) else node.values
        text = "".join(p.value for p in parts if isinstance(getattr(p, "value", None), str))
        if TAG.search(ROLE_TARGET.sub("", text)):
            found.append((node.lineno, text))
    return found


def test_no_module_of_the_book_writes_html_in_a_python_string():
    modules = sorted((PACKAGE / "book").glob("*.py"))
    assert len(modules) > 20
    found = {m.name: html_strings(m) for m in modules}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_guard_finds_html_in_a_string(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        '"""A <b>docstring</b>."""\nimport re\nP = re.compile(r"<td[^>]*>")\n'
        'def f(x):\n    """<i>doc</i>"""\n    return f\'<td class="n">{x}</td>\'\n'
        'LINK = "{ref}`page <task-nli>`, {doc}`results </book/results>`"\n',
        encoding="utf-8",
    )
    assert [line for line, _ in html_strings(module)] == [6]


def test_every_template_renders_a_value_as_text():
    parts = templating.parts
    assert str(parts("klue_table.html").section_title(HOSTILE)) == (
        '<span class="section-title">&lt;img src=x onerror=alert(1)&gt; &#34;a&#34; &amp; '
        "&#39;b&#39;</span>"
    )
    row = SimpleNamespace(
        kind="reproduced", label=HOSTILE, split="dev", size="base", configuration=HOSTILE
    )
    head = str(parts("klue_table.html").row_head(row, None, None, None, ""))
    assert "<img" not in head and head.count("&lt;img src=x") == 2
    link = str(parts("side_by_side.html").run_link(HOSTILE, 'a.html#"x'))
    assert link == (
        '<a href="a.html#&#34;x">&lt;img src=x onerror=alert(1)&gt; &#34;a&#34; &amp; '
        "&#39;b&#39;</a>"
    )
    cell = str(parts("item_browser.html").text_cell("<b>one</b>\ntwo"))
    assert cell == "&lt;b&gt;one&lt;/b&gt;<br>two"  # its line breaks kept, its markup text
    assert "<img" not in str(parts("sphinx_extension.html").hidden_caption(HOSTILE))


def test_a_json_block_cannot_be_closed_by_what_it_holds():
    view = templating.parts("side_by_side.html").view
    data = {"texts": ["</script><script>alert(1)</script>", "참 & 'b'"]}
    shown = str(view("s", "x.js", data, "", "A", "B", "", "", "", ""))
    block = shown.split('<script type="application/json" id="s-data">')[1].split("</script>")[0]
    assert "<" not in block and "참" in block


def test_a_name_the_template_does_not_know_is_an_error():
    with pytest.raises(UndefinedError):
        str(templating.parts("gap_table.html").gap_table(["X"], [(object(), object(), [])]))
