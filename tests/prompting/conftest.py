"""The prompted task of the tests' own (`support.prompted.prompted_task`, registered for the
tests of this package only) and the tiny causal LM built on its text."""

import pytest
from support import prompted

from kluebook.prompting.registry import task_prompting, task_template
from kluebook.tasks import get_task, task_module

prompted_task = prompted.prompted_task  # the fixture, for this package


@pytest.fixture(scope="package")
def split_items(prompted_task):
    """(train items, dev items) of the task's smoke data, through its prompting module."""
    prompting = task_prompting(prompted_task)
    data = task_module(get_task(prompted_task)).generate(seed=0, train_size=40, dev_size=12)
    return prompting.prompt_items(data["train"]), prompting.prompt_items(data["dev"])


@pytest.fixture(scope="package")
def tiny_lm(prompted_task, split_items, tmp_path_factory):
    """The tiny causal LM, built on the task's prompts (into a cache of the tests' own), on CPU."""
    from kluebook.prompting import tiny_causal_lm
    from kluebook.prompting.local_lm import open_local_lm
    from kluebook.prompting.render import render_prompt

    template = task_template(prompted_task)
    train, dev = split_items
    texts = [render_prompt(template, train[:2], item) for item in train + dev]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tiny_causal_lm, "CACHE", tmp_path_factory.mktemp("cache"))
        return open_local_lm(tiny_causal_lm.TINY_CAUSAL_LM, device="cpu", tiny_texts=texts)
