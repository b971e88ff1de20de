"""A registered task's side of the prompted track: its template and its prompting module."""

import importlib
from functools import cache

from kluebook.common.errors import KluebookError
from kluebook.tasks import get_task
from kluebook.tasks.prompt_items import (
    PROMPTING_INTERFACE,
    TEMPLATE_FILE,
    PromptTemplate,
    TaskPrompting,
    load_template,
)


@cache
def task_prompting(task_name: str) -> tuple[PromptTemplate, TaskPrompting]:
    """A registered task's template and prompting module, checked against `TaskPrompting`."""
    task = get_task(task_name)
    template = load_template(task.folder / TEMPLATE_FILE)
    package = task.package.__name__
    module = importlib.import_module(f"{package}.prompting")
    missing = [name for name in PROMPTING_INTERFACE if not callable(getattr(module, name, None))]
    if missing:
        raise KluebookError(
            f"task {task_name!r} ({task.folder / 'prompting.py'}) does not offer "
            f"{', '.join(missing)}: see kluebook.tasks.prompt_items.TaskPrompting"
        )
    return template, module
