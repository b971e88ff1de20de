"""The task registry, discovered from the task folders.

Every folder here (and in each folder named by `KLUEBOOK_TASKS_PATH`, `:`-separated) that holds a
`task.yaml` is a task, named after the folder: a `Task` (`kluebook.task_types.task`, the layer
below data, scoring and training, which take it), its task.yaml validated. The interface the
shared code uses, `TaskModule`, is read from the folder's data.py and synthetic.py and checked
when first asked for (`task_module(task)`); `task_package`, `notebook_path` and `card_path` find
a task's package, notebook and card. `README.md` beside this file explains the layout and how to
add a task.
"""

import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import MISSING, fields
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import get_args

from kluebook.common.errors import KluebookError
from kluebook.common.paths import NOTEBOOKS, PACKAGED_NOTEBOOKS
from kluebook.task_types.interface import TaskModule

# A task and its interface are defined below the layers that take them; the registry offers them
# with the functions that find and read its tasks.
from kluebook.task_types.task import Metric as Metric
from kluebook.task_types.task import Task as Task
from kluebook.task_types.task import read_task
from kluebook.task_types.task import task_module as task_module
from kluebook.tasks.interface import INTERFACE_MODULE

BUILT_IN = Path(__file__).parent
EXTRA_TASKS_VARIABLE = "KLUEBOOK_TASKS_PATH"


def task_package(task: Task) -> ModuleType:
    """The task folder as a Python package (built in: `kluebook.tasks.<name>`; found through
    KLUEBOOK_TASKS_PATH: `kluebook_extra_tasks.<name>`), to import its own modules from."""
    return _task_package(task.name, task.folder)


def notebook_path(task: Task) -> Path:
    """`notebook.ipynb` in the task folder if there is one, else `<name>.ipynb` in the book root's
    notebooks/ if it is there, else the package's (the checkout's notebooks/, or the copy a wheel
    carries)."""
    own = task.folder / "notebook.ipynb"
    if own.exists():
        return own
    book_root = NOTEBOOKS / f"{task.name}.ipynb"
    return book_root if book_root.exists() else PACKAGED_NOTEBOOKS / f"{task.name}.ipynb"


def card_path(task: Task) -> Path:
    """The task card, shown in the book as the task's methods page."""
    return task.folder / "README.md"


def _read_module(task: Task) -> TaskModule:
    """A task's interface (`task_module`), read once per folder."""
    return _task_module(task.name, task.folder)


@cache
def _task_module(name: str, folder: Path) -> TaskModule:
    """A task's interface, read from its modules and checked (a one-line error if it lacks a
    function or one takes other arguments)."""
    package = _task_package(name, folder)
    found, problems = {}, []
    for member in fields(TaskModule):
        module = INTERFACE_MODULE[member.name]
        function = getattr(_submodule(package, module, folder), member.name, None)
        if function is None and member.default is not MISSING:
            continue
        if not callable(function):
            problems.append(f"does not offer {member.name} in {module}.py")
        elif not _accepts(function, member.type):
            problems.append(f"{module}.{member.name} does not take the interface's arguments")
        else:
            found[member.name] = function
    if problems:
        raise KluebookError(
            f"task {name!r} ({folder}) {'; '.join(problems)}: "
            "see kluebook.task_types.interface.TaskModule and the task README"
        )
    return TaskModule(**found)


def _submodule(package: ModuleType, module: str, folder: Path) -> ModuleType | None:
    """The task's `module` (data, synthetic), or None if its folder has no such file."""
    if not (folder / f"{module}.py").is_file():
        return None
    return importlib.import_module(f"{package.__name__}.{module}")


def _accepts(function: Callable, declared) -> bool:
    """Whether `function` can be called with as many positional arguments as declared."""
    arguments = get_args(declared)
    if type(None) in arguments:  # an optional function: the arguments of the callable
        arguments = get_args(arguments[0])
    positional = arguments[0] if arguments else ...
    if positional is ...:
        return True
    try:
        inspect.signature(function).bind(*positional)
    except TypeError:
        return False
    return True


@cache
def _task_package(name: str, folder: Path) -> ModuleType:
    """A task folder imported as a package (its `__init__.py`, if it has one, is run)."""
    if folder.parent == BUILT_IN:
        return importlib.import_module(f"kluebook.tasks.{name}")
    module_name = f"kluebook_extra_tasks.{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    init = folder / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(
            module_name, init, submodule_search_locations=[str(folder)]
        )
    else:
        spec = importlib.machinery.ModuleSpec(module_name, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    if spec.loader is not None:
        spec.loader.exec_module(module)
    return module


def task_folders() -> list[Path]:
    """The built-in task folders, then those under each KLUEBOOK_TASKS_PATH entry."""
    roots = [BUILT_IN]
    roots += [Path(p) for p in os.environ.get(EXTRA_TASKS_VARIABLE, "").split(os.pathsep) if p]
    return [folder for root in roots for folder in sorted(root.iterdir()) if _is_task(folder)]


def _is_task(folder: Path) -> bool:
    return folder.is_dir() and (folder / "task.yaml").is_file()


def load_task(folder: Path) -> Task:
    """The task of one folder, from its task.yaml (validated by `TaskEntry`)."""
    return read_task(folder, _read_module)


@cache
def _all_tasks(search_path: str) -> dict[str, Task]:
    tasks = {}
    for folder in task_folders():
        if folder.name in tasks:
            raise KluebookError(f"two tasks are called {folder.name!r}: {folder}")
        tasks[folder.name] = load_task(folder)
    return dict(sorted(tasks.items(), key=lambda item: (item[1].order, item[0])))


def all_tasks() -> dict[str, Task]:
    """Every registered task, in the order of the KLUE tables (added tasks after them)."""
    return _all_tasks(os.environ.get(EXTRA_TASKS_VARIABLE, ""))


def get_task(name: str) -> Task:
    """The registered task called `name`, or a one-line error listing the known ones."""
    tasks = all_tasks()
    if name not in tasks:
        raise KluebookError(f"unknown task {name!r}; known tasks: {', '.join(tasks)}")
    return tasks[name]


def available_tasks() -> list[str]:
    """Tasks whose notebook exists, i.e. that the runner can execute."""
    return [name for name, task in all_tasks().items() if notebook_path(task).exists()]
