"""Every task's prompt.yaml validates, and its prompting module fills exactly the query's fields."""

import re
from string import Formatter

import pytest

from kluebook.common.errors import KluebookError
from kluebook.prompting.registry import task_prompting
from kluebook.tasks import get_task
from kluebook.tasks.prompt_items import TEMPLATE_FILE, load_template

# The way each task is answered, as issue 27 asks for it.
MODES = {
    "ynat": "rank",
    "sts": "rank",
    "nli": "rank",
    "re": "rank",
    "ner": "generate",
    "dp": "generate",
    "mrc": "generate",
    "wos": "generate",
}


@pytest.fixture(params=list(MODES))
def task_name(request):
    return request.param


@pytest.fixture
def smoke(task_name):
    return get_task(task_name).module.generate(seed=0)


def placeholders(layout: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(layout) if name is not None}


def test_the_template_validates_and_declares_the_tasks_mode(task_name):
    template = load_template(get_task(task_name).folder / TEMPLATE_FILE)
    assert template.mode == MODES[task_name]
    assert task_prompting(task_name)[0] == template
    assert template.answer_prefix not in template.query


def test_the_query_placeholders_are_exactly_the_item_fields(task_name, smoke):
    template, module = task_prompting(task_name)
    expected = placeholders(template.query)
    for split in ("train", "dev"):
        items = module.prompt_items(smoke[split])
        assert items, split
        for item in items:
            assert set(item.fields) == expected, (split, item.key)
            assert all(isinstance(value, str) for value in item.fields.values())
            template.query.format(**item.fields)


def test_items_are_keyed_like_the_gold_in_order(task_name, smoke):
    task = get_task(task_name)
    _, module = task_prompting(task_name)
    items = module.prompt_items(smoke["dev"])
    assert [item.key for item in items] == task.module.gold_keys(smoke["dev"])


def test_a_ranked_tasks_choices_are_listed_in_its_answer_format(task_name, smoke):
    template, module = task_prompting(task_name)
    items = module.prompt_items(smoke["dev"])
    if template.mode == "generate":
        assert all(item.choices == () for item in items)
        with pytest.raises(KluebookError, match="answered by generation"):
            module.rank_prediction(items[0], {})
        return
    choices = items[0].choices
    assert len(set(choices)) == len(choices) > 1
    assert all(item.choices == choices and item.answer in choices for item in items)
    listed = template.answer_format.replace("\n", " ")
    assert all(choice in listed for choice in choices)


def test_a_broken_template_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / TEMPLATE_FILE
    path.write_text("mode: rank\ninstruction: x\nanswer_format: y\nquery: '{a}'\nshots: 5\n")
    with pytest.raises(KluebookError, match=str(path)) as caught:
        load_template(path)
    assert "\n" not in str(caught.value)


def listed_slots(instruction: str) -> set[str]:
    """The `domain-slot` names of the WoS instruction's list (`도메인: 슬롯, 슬롯.` per domain)."""
    slots = set()
    for domain, names in re.findall(r"(\S+): ([^.:]+)\.", instruction):
        slots.update(f"{domain}-{name.strip()}" for name in names.split(","))
    return slots


@pytest.mark.realdata
def test_the_wos_instruction_lists_the_slots_of_the_official_ontology(klue_file):
    from kluebook.tasks.wos.data import read_ontology

    ontology = read_ontology(klue_file("wos-v1.1/ontology.json"))
    template, _ = task_prompting("wos")
    assert listed_slots(template.instruction.replace("\n", " ")) == set(ontology)
