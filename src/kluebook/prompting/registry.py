"""A registered task's side of the prompted track: one of its templates and its prompting
module."""

import importlib
from functools import cache

from kluebook.common.errors import KluebookError
from kluebook.tasks import get_task, task_package
from kluebook.tasks.prompt_items import (
    DEFAULT_TEMPLATE,
    PROMPTING_INTERFACE,
    PromptTemplate,
    TaskPrompting,
    load_template,
    template_path,
)


@cache
def task_prompting(
    task_name: str, template: str = DEFAULT_TEMPLATE
) -> tuple[PromptTemplate, TaskPrompting]:
    """A registered task's template `template` and its prompting module, checked against
    `TaskPrompting`."""
    task = get_task(task_name)
    loaded = load_template(template_path(task.folder, template))
    package = task_package(task).__name__
    module = importlib.import_module(f"{package}.prompting")
    missing = [name for name in PROMPTING_INTERFACE if not callable(getattr(module, name, None))]
    if missing:
        raise KluebookError(
            f"task {task_name!r} ({task.folder / 'prompting.py'}) does not offer "
            f"{', '.join(missing)}: see kluebook.tasks.prompt_items.TaskPrompting"
        )
    return loaded, module
