"""MyST Markdown the generated pages share, and the one way a string from outside (a model name
or id, a template or configuration name, a `--set` value, an error, anything a record carries)
enters it: as literal text (`text`), as inline code (`code`) or as a link's text (`doc_link`), so
no such string can open an HTML tag, a Markdown link, a MyST role or directive, or a new line of
the page."""

import re

# What MyST reads as markup anywhere in a line: HTML and entities (`<`, `>`, `&`), links and
# images (`[`, `]`), roles, substitutions and attributes (`{`, `}`), code (the backtick), emphasis
# (`*`; `_` unless a letter or digit stands on both sides, where CommonMark reads it as a letter),
# math (`$`), tables (`|`), `~`, `#` and the backslash itself. Each is literal after a backslash.
_MARKUP = re.compile(r"[\\`*{}\[\]<>&$|~#]|(?<![^\W_])_|_(?![^\W_])")
# What MyST reads as markup at the start of a line (a list item, a quote, a heading, a fence, a
# directive, a comment, a numbered list): any ASCII punctuation there, or digits and `.` or `)`.
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
_NUMBERED = re.compile(r"^(\d+)([.)])")
# Line and paragraph breaks and other control characters: a name is one line of text.
_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def one_line(value) -> str:
    """`value` as a string on one line (control characters as a space)."""
    return _BREAKS.sub(" ", str(value))


def text(value) -> str:
    """`value` as literal text in MyST Markdown (a heading, a paragraph, a list or table cell),
    on one line: whatever MyST would read as markup escaped with a backslash, the rest (letters,
    `/`, `=`, `-`, `.`, `,` inside a name) left as it is, so the source stays readable."""
    line = one_line(value).strip()
    escaped = _MARKUP.sub(lambda found: "\\" + found.group(), line)
    if _PUNCTUATION.match(line) and not escaped.startswith("\\"):
        escaped = "\\" + escaped
    return _NUMBERED.sub(r"\1\\\2", escaped)


def _fence(value: str) -> str:
    """The backtick fence that holds `value` as one code span or role: a run of backticks longer
    than any inside it."""
    return "`" * (max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)


def code(value) -> str:
    """`value` as inline code: shown as it is, nothing in it read as Markdown or HTML (a space
    inside the fence where it begins or ends with a backtick, which CommonMark drops)."""
    value = one_line(value)
    fence = _fence(value)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def code_block(value, language: str) -> str:
    """`value` as a fenced code block in `language`, on one line: a fence of backticks longer
    than any run inside it (three at least), so no line of it can close the block."""
    value = one_line(value)
    fence = "`" * max(3, len(_fence(value)))
    return f"{fence}{language}\n{value}\n{fence}\n"


def doc_link(title, docname: str) -> str:
    """A link to the page `docname` (a docname of safe characters, `paths.file_name`) with
    `title` as its text (`text`): a Markdown link, which MyST resolves to the page as `{doc}`
    does, and whose text, unlike a role's, may hold any character."""
    return f"[{text(title) or docname}](/{docname})"


def list_table(header: list[str], rows: list[list[str]], widths: list[int]) -> str:
    """A `list-table` of fixed column widths (percent) that fits the page: long values (paths,
    checksums) wrap inside their column instead of widening the table. Without a header row,
    the first column is the rows' headers (a field and its value), so each cell has a header."""
    lines = [
        "```{list-table}",
        f":header-rows: {1 if header else 0}",
        *([] if header else [":stub-columns: 1"]),
        f":widths: {' '.join(str(w) for w in widths)}",
        ":class: kluebook-fixed",
        "",
    ]
    for row in [header, *rows] if header else rows:
        lines += [f"{'* -' if i == 0 else '  -'} {cell}" for i, cell in enumerate(row)]
    return "\n".join(lines) + "\n```\n"
