"""The book's HTML: Jinja2 templates (`templates/`, package data), rendered with autoescaping,
so every value a page part hands a template is text unless it is markup a template made
(`Markup`): a name from outside cannot open a tag, whatever the Python around it forgets.

Each template holds the macros of one page part (`klue_table.html`: the KLUE table's cells,
headers and notes, ...); `parts(name)` gives them as functions returning `Markup`. Line breaks in
a template are for its reader: each one is taken out by Jinja's whitespace control (`{{-`,
`{%-`), so the HTML is one line where Markdown needs one block."""

from functools import cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

# Where the templates are (the book's build digests them with the code, `kluebook.book.build`).
TEMPLATES = Path(__file__).parent / "templates"


@cache
def environment() -> Environment:
    """The templates' environment: autoescaping on, an undefined name an error."""
    jinja = Environment(
        loader=PackageLoader("kluebook", "book/templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        auto_reload=False,  # a process renders the templates it started with (no stat per call)
    )
    # `tojson` (a JSON block a page's script reads): compact, its text as it is (not \u-escaped
    # beyond what could close the block).
    jinja.policies["json.dumps_kwargs"] = {"ensure_ascii": False, "separators": (",", ":")}
    return jinja


@cache
def parts(name: str):
    """The macros of the template `name`, each a function that returns `Markup`."""
    return environment().get_template(name).module
