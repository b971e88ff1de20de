"""MyST Markdown the generated pages share."""


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
