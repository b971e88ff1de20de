"""What a run was made from (`Inputs`), each part hashed: its notebook, parameters and data, its
task's code and the shared code it runs (the import closure of its notebook and task folder,
`kluebook.recording.code_closure`), hashed by behaviour (comments and docstrings left out). A run
is up to date while every part is what it is today (`current_code`, `stale_inputs`)."""

import ast
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict

from kluebook import __version__
from kluebook.common.paths import PROMPTED_NOTEBOOK
from kluebook.common.repository import without_install_address
from kluebook.data.loading import file_sha256
from kluebook.recording.code_closure import PARSING, closure, file_imports, notebook_imports
from kluebook.tasks import notebook_path
from kluebook.tasks.prompt_items import (
    DEFAULT_TEMPLATE,
    TEMPLATES_FOLDER,
    template_names,
    template_path,
)

# How a run was made: a checkpoint fine-tuned by the task's notebook, or a language model
# prompted by the prompted notebook (`PROMPTED_NOTEBOOK`).
FINE_TUNED, PROMPTED = "fine-tuned", "prompted"
Method = Literal["fine-tuned", "prompted"]


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                node.body = node.body[1:] or [ast.Pass()]
    return tree


def _canonical(node) -> Any:
    """A syntax tree as plain data, the same on every supported Python (fields that are None
    or empty are left out, as newer Pythons add such fields)."""
    if isinstance(node, ast.AST):
        fields = {}
        for name in node._fields:
            value = getattr(node, name, None)
            if value is not None and value != []:
                fields[name] = _canonical(value)
        return [type(node).__name__, fields]
    if isinstance(node, list):
        return [_canonical(item) for item in node]
    return repr(node)


def code_digest(path: Path) -> str:
    """SHA-256 of what a file of code does: a Python module's syntax tree without docstrings
    (comments and formatting do not count), a YAML file's data; other files' bytes."""
    content = path.read_bytes()
    if path.suffix not in {".py", ".yaml", ".yml"}:
        return hashlib.sha256(content).hexdigest()
    return _behaviour_digest(path.suffix, content, str(path))


@lru_cache(maxsize=4096)
def _behaviour_digest(suffix: str, content: bytes, name: str) -> str:
    """`code_digest` of a module or YAML file, by its bytes: a sweep fingerprints every run with
    the same files, and parsing them again for each run took most of a no-change rebuild."""
    if suffix == ".py":
        with PARSING:
            tree = _without_docstrings(ast.parse(content.decode("utf-8"), name))
        text = json.dumps(_canonical(tree))
    else:
        text = json.dumps(yaml.safe_load(content.decode("utf-8")), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _digest_of(files: list[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    for name, path in files:
        digest.update(f"{name}\0{code_digest(path)}\0".encode())
    return digest.hexdigest()


def task_imports(task) -> list[str]:
    """The kluebook modules the code of the task's folder imports (the task registry imports
    that code by a computed name, which the closure of the notebook's imports cannot see)."""
    imported = []
    for path in sorted(task.folder.rglob("*.py")):
        if "__pycache__" not in path.parts:
            name = ".".join(path.relative_to(task.folder).with_suffix("").parts)
            imported += file_imports(path, f"task.{name}".removesuffix(".__init__"))
    return imported


def method_notebook(task, method: str = FINE_TUNED) -> Path:
    """The notebook a run of `task` made by `method` executes."""
    return PROMPTED_NOTEBOOK if method == PROMPTED else notebook_path(task)


def run_modules(task, method: str = FINE_TUNED) -> list[tuple[str, Path]]:
    """The shared modules a run of `task` executes: the import closure of what its notebook and
    its task folder import, apart from the modules of the task folder (`task_code_hash`)."""
    notebook = method_notebook(task, method)
    entry = notebook_imports(notebook.read_text(encoding="utf-8")) if notebook.is_file() else ()
    own = f"kluebook.tasks.{task.name}"
    modules = [
        (name, path)
        for name, path in closure([*entry, *task_imports(task)]).items()
        if name != own and not name.startswith(own + ".")
    ]
    return [*modules, *package_data(modules)]


# What a package's data files are (beside its modules, read by them).
DATA_SUFFIXES = frozenset((".yaml", ".yml", ".json", ".jsonl", ".csv"))
# Packages whose data files carry a version of their own that every record holds: the errata
# manifest and its edits, under the manifest's version (`Errata.version`). A record made under
# another version is stale for its corrected values only (`kluebook.results.pooling`), and its
# official numbers stay current.
VERSIONED_DATA = frozenset(("kluebook.errata",))


def package_data(
    modules: list[tuple[str, Path]], versioned: frozenset[str] = VERSIONED_DATA
) -> list[tuple[str, Path]]:
    """The data files in the folder of each package among `modules`: part of its code, unless
    the package versions them itself (`versioned`; the pages, which print them, pass none)."""
    return [
        (f"{name}/{file.name}", file)
        for name, path in modules
        if path.name == "__init__.py" and name not in versioned
        for file in sorted(path.parent.iterdir())
        if file.is_file() and file.suffix in DATA_SUFFIXES
    ]


def shared_code_hash(task, method: str = FINE_TUNED) -> str:
    """A hash of the shared modules a run of `task` executes (`run_modules`), by behaviour
    (`code_digest`)."""
    return _digest_of(run_modules(task, method))


def task_code_hash(task) -> str:
    """A hash of the task's folder: its code and task.yaml (which holds its version); not its
    prompt templates, each an input of the prompted runs made with it (`template_digest`)."""
    files = [
        (f"task/{path.relative_to(task.folder).as_posix()}", path)
        for path in sorted(task.folder.rglob("*"))
        if path.suffix in {".py", ".yaml"}
        and "__pycache__" not in path.parts
        and path.parent != task.folder / TEMPLATES_FOLDER
    ]
    return _digest_of(files)


def template_digest(task, template: str = DEFAULT_TEMPLATE) -> str:
    """The SHA-256 of one of the task's prompt templates, as it is on disk: an input of the
    prompted runs made with it."""
    return file_sha256(template_path(task.folder, template))


def template_of(parameters: dict) -> str:
    """The template a prompted run's parameters name (a record written before templates had
    names ran the default)."""
    return parameters.get("template") or DEFAULT_TEMPLATE


def run_code_hash(task, method: str = FINE_TUNED) -> str:
    """A hash of the code a run of `task` executes: the shared run modules, the task's folder
    (and, prompted, its templates) and the package version."""
    parts = [__version__, shared_code_hash(task, method), task_code_hash(task)]
    if method == PROMPTED:
        parts += [template_digest(task, name) for name in template_names(task.folder)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def notebook_code(path: Path) -> str:
    """`cells_code` of the notebook at `path`."""
    return cells_code(path.read_text(encoding="utf-8"))


def cells_code(notebook_text: str) -> str:
    """The source of a notebook's cells, without outputs or metadata, and without the address
    its first cell installs kluebook from where it is missing (a fork that sets its own
    repository address runs the same code)."""
    import nbformat  # lazy: slow to import, and most commands read no notebook

    notebook = nbformat.reads(notebook_text, as_version=4)
    cells = (f"{cell.cell_type}:{cell.source}" for cell in notebook.cells)
    return without_install_address("\n\n".join(cells))


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Inputs(BaseModel):
    """What a run was made from, each part hashed: a finished run is reused while every part is
    unchanged, and a record whose parts differ from today's says which input changed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    notebook: str
    parameters: str
    data: str
    task_code: str
    shared_code: str
    task_version: int
    package: str
    template: str | None = None  # the prompt template's digest; prompted runs only
    # The identity a server reported for the model it answers with; runs on a server only.
    served_model: str | None = None

    @property
    def fingerprint(self) -> str:
        return text_digest(json.dumps(self.model_dump(exclude_none=True), sort_keys=True))

    def changed(self, current: "Inputs | dict", parts: tuple[str, ...] | None = None) -> list[str]:
        """The inputs that differ from `current`, in words (`INPUT_NAMES`)."""
        now = current if isinstance(current, dict) else current.model_dump()
        mine = self.model_dump()
        return [INPUT_NAMES[k] for k in parts or INPUT_NAMES if k in now and mine.get(k) != now[k]]


INPUT_NAMES = {
    "notebook": "notebook",
    "parameters": "parameters",
    "data": "data",
    "task_code": "task code",
    "shared_code": "shared code",
    "task_version": "task version",
    "package": "kluebook version",
    "template": "prompt template",
    "served_model": "served model",
}
# The inputs the report can check without the data: the code and notebook a record was made by.
CODE_INPUTS = ("notebook", "task_code", "shared_code", "task_version", "package", "template")


# Parameters that are no part of the `parameters` input: how a server is asked changes no
# answer, and the served model is an input of its own.
OUTSIDE_PARAMETERS = ("server_options", "served_model")


def inputs(
    task, code: str, parameters: dict, data_checksum: str, method: str = FINE_TUNED
) -> Inputs:
    """The inputs of a run of `task` made by `method` with these parameters
    (`portable_parameters`) and data."""
    counted = {k: v for k, v in parameters.items() if k not in OUTSIDE_PARAMETERS}
    return Inputs(
        notebook=text_digest(code),
        parameters=text_digest(json.dumps(counted, sort_keys=True, ensure_ascii=False)),
        data=data_checksum,
        task_code=task_code_hash(task),
        shared_code=shared_code_hash(task, method),
        task_version=task.version,
        package=__version__,
        template=template_digest(task, template_of(parameters)) if method == PROMPTED else None,
        served_model=parameters.get("served_model") or None,
    )


def current_code(task, method: str = FINE_TUNED, template: str = DEFAULT_TEMPLATE) -> dict:
    """The code inputs (`CODE_INPUTS`) a run of `task` made by `method` (prompted: with the
    template `template`) would be made from today."""
    return {
        "notebook": text_digest(notebook_code(method_notebook(task, method))),
        "task_code": task_code_hash(task),
        "shared_code": shared_code_hash(task, method),
        "task_version": task.version,
        "package": __version__,
        "template": _template_today(task, template) if method == PROMPTED else None,
    }


def _template_today(task, template: str) -> str:
    """The digest of a template as it is today; "" for one that is gone (a record made with it
    is stale)."""
    return template_digest(task, template) if template in template_names(task.folder) else ""


def stale_inputs(made_from: Inputs, current: dict | None) -> list[str]:
    """The code inputs that changed since a record was made from `made_from`, in words; [] for
    a current one (`current` is `current_code` of its task and method, None for a task that is
    gone)."""
    if current is None:
        return ["task"]
    return made_from.changed(current, CODE_INPUTS)
