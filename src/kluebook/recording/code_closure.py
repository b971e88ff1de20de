"""The kluebook modules a piece of code runs: the modules it imports, then theirs, and so on (its
import closure), found by reading the code, never from a list kept by hand. A run's fingerprint
and the page cache are made from it.

Every `import` and `from ... import` of a module counts, those inside functions too; a name
imported from a package counts as its submodule where the package has one, and importing a
module imports the packages above it. Modules imported by a computed name (a task's package and
its metric and prompting modules, loaded by the task registry) are not seen here: they live in
the task folders, which their users hash whole.
"""

import ast
import threading
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

PACKAGE = "kluebook"
PACKAGE_DIR = Path(__file__).parents[1]
# CPython 3.11 can fail ast.parse when threads parse at once ("AST constructor recursion depth
# mismatch"): the runner's threads (--jobs, Dask, Slurm) fingerprint their runs at the same time.
PARSING = threading.Lock()


def module_file(name: str) -> Path | None:
    """The file of a kluebook module or package (`kluebook.tasks.<task>.data`), None for a name
    that is not one."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = PACKAGE_DIR.joinpath(*parts[1:])
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=4096)
def _imports_of(source: bytes, module: str, is_package: bool) -> tuple[tuple[str, tuple], ...]:
    """The kluebook modules a module's source imports, each with the names it takes from them
    (by content: a sweep asks for the same files once per run)."""
    with PARSING:
        tree = ast.parse(source, module)
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            found.update((alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            origin = node.module or ""
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            found.add((origin, tuple(sorted(alias.name for alias in node.names))))
    return tuple(sorted((name, names) for name, names in found if name.split(".")[0] == PACKAGE))


def _statements(body: list) -> Iterator[ast.stmt]:
    """Every statement of a body and of the bodies nested in it (imports are statements, so
    expressions need not be walked)."""
    for node in body:
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            nested = getattr(node, name, None)
            if isinstance(nested, list):
                yield from _statements(nested)


def _modules_named(imports: tuple[tuple[str, tuple], ...]) -> list[str]:
    """The modules of `_imports_of`: each one imported, and the names taken from a package
    that are its submodules."""
    named = []
    for module, names in imports:
        named.append(module)
        path = module_file(module)
        if path is not None and path.name == "__init__.py":
            named += [f"{module}.{name}" for name in names if module_file(f"{module}.{name}")]
    return named


def closure(entry: Iterable[str]) -> dict[str, Path]:
    """Every kluebook module the modules named in `entry` import, directly or not, with
    themselves and the packages above them: name -> file, in name order."""
    found: dict[str, Path] = {}
    pending = list(entry)
    while pending:
        parts = pending.pop().split(".")
        for parent in (".".join(parts[: i + 1]) for i in range(len(parts))):
            if parent in found or (path := module_file(parent)) is None:
                continue
            found[parent] = path
            pending += file_imports(path, parent)
    return dict(sorted(found.items()))


def file_imports(path: Path, module: str) -> list[str]:
    """The kluebook modules the module `module` in file `path` imports."""
    return _modules_named(_imports_of(path.read_bytes(), module, path.name == "__init__.py"))


@lru_cache(maxsize=64)
def notebook_imports(notebook_text: str) -> tuple[str, ...]:
    """The kluebook modules a notebook's code cells import (its entry points)."""
    code = notebook_code(notebook_text)
    return tuple(_modules_named(_imports_of(code.encode(), "__notebook__", False)))


def notebook_code(notebook_text: str) -> str:
    """A notebook's code cells as one Python source, its IPython magics (`%pip`, `!cmd`) read
    as the calls they stand for."""
    import nbformat
    from IPython.core.inputtransformer2 import TransformerManager

    notebook = nbformat.reads(notebook_text, as_version=4)
    return "\n".join(
        TransformerManager().transform_cell(cell.source)
        for cell in notebook.cells
        if cell.cell_type == "code"
    )
