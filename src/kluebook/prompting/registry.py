"""A registered task's side of the prompted track: its templates (`task_template`) and its
prompting module (`task_prompting`)."""

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
def task_template(task_name: str, template: str = DEFAULT_TEMPLATE) -> PromptTemplate:
    """A registered task's template `template` (prompts/<template>.yaml in its folder), checked;
    a one-line error naming the known ones if it has none of that name."""
    return load_template(template_path(get_task(task_name).folder, template))


@cache
def task_prompting(task_name: str) -> TaskPrompting:
    """A registered task's prompting module, checked against `TaskPrompting`."""
    task = get_task(task_name)
    package = task_package(task).__name__
    module = importlib.import_module(f"{package}.prompting")
    missing = [name for name in PROMPTING_INTERFACE if not callable(getattr(module, name, None))]
    if missing:
        raise KluebookError(
            f"task {task_name!r} ({task.folder / 'prompting.py'}) does not offer "
            f"{', '.join(missing)}: see kluebook.tasks.prompt_items.TaskPrompting"
        )
    return module
