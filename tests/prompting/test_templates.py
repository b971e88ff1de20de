"""Every template of every task validates, a family of at least three per task with the standard
one among them, and its task's prompting module fills exactly the query's fields."""

import re
from functools import cache
from string import Formatter

import pytest

from kluebook.common.errors import KluebookError
from kluebook.prompting.checks import check_template
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.tasks import get_task, task_module
from kluebook.tasks.prompt_items import (
    DEFAULT_TEMPLATE,
    PromptTemplate,
    load_template,
    template_names,
    template_path,
)

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


TEMPLATES = [(t, n) for t in MODES for n in template_names(get_task(t).folder)]


@pytest.fixture(params=TEMPLATES, ids=[f"{t}-{n}" for t, n in TEMPLATES])
def named(request):
    """A (task, template name) pair of the shipped families."""
    return request.param


def test_every_task_has_a_family_of_three_templates_or_more(task_name):
    names = template_names(get_task(task_name).folder)
    assert DEFAULT_TEMPLATE in names and len(names) >= 3
    instructions = {task_template(task_name, n).instruction for n in names}
    assert len(instructions) == len(names)  # each its own wording


def test_the_reworded_templates_of_tasks_with_whole_answers_have_their_own_words():
    for task_name in ("nli", "sts", "re", "ynat", "mrc", "wos"):
        assert task_template(task_name, "reworded").answer_words, task_name


@cache
def smoke_data(task_name: str) -> dict:
    return task_module(get_task(task_name)).generate(seed=0)


@pytest.fixture
def smoke(task_name):
    return smoke_data(task_name)


def placeholders(layout: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(layout) if name is not None}


def test_the_template_validates_and_declares_the_tasks_mode(named):
    task_name, name = named
    template = load_template(template_path(get_task(task_name).folder, name))
    assert template.name == name
    assert template.mode == MODES[task_name]
    assert task_template(task_name, name) == template
    assert template.answer_prefix not in template.query
    check_template(task_name, template)


def test_an_unknown_template_is_refused_naming_the_known_ones():
    with pytest.raises(KluebookError, match="template 'loud': no such template; known: brief"):
        task_template("nli", "loud")


def test_answer_words_that_rename_no_choice_or_merge_two_are_refused():
    standard = task_template("nli")
    stranger = standard.model_copy(update={"answer_words": {"아마": "예"}})
    with pytest.raises(KluebookError, match="not choices: 아마"):
        check_template("nli", stranger)
    merged = standard.model_copy(update={"answer_words": {"참": "거짓"}})
    with pytest.raises(KluebookError, match="each to a word of its own"):
        check_template("nli", merged)
    with pytest.raises(ValueError, match="its own non-empty word"):
        PromptTemplate.model_validate(
            {**standard.model_dump(), "answer_words": {"참": "예", "거짓": "예"}}
        )


def test_written_and_read_back_are_inverse():
    template = task_template("nli", "reworded")
    assert template.written("알 수 없음") == "모름"
    assert template.read_back("모름") == "알 수 없음"
    assert template.read_back("글쎄요") == "글쎄요"


def test_the_query_placeholders_are_exactly_the_item_fields(named):
    task_name, name = named
    smoke = smoke_data(task_name)
    template = task_template(task_name, name)
    module = task_prompting(task_name)
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
    module = task_prompting(task_name)
    items = module.prompt_items(smoke["dev"])
    assert [item.key for item in items] == task_module(task).gold_keys(smoke["dev"])


def test_a_ranked_tasks_choices_are_listed_in_its_answer_format(named):
    task_name, name = named
    smoke = smoke_data(task_name)
    template = task_template(task_name, name)
    module = task_prompting(task_name)
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
    assert all(template.written(choice) in listed for choice in choices)


def test_a_broken_template_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "loud.yaml"
    path.write_text("mode: rank\ninstruction: x\nanswer_format: y\nquery: '{a}'\nshots: 5\n")
    with pytest.raises(KluebookError, match=str(path)) as caught:
        load_template(path)
    assert "\n" not in str(caught.value)
    path.write_text("name: other\nmode: rank\ninstruction: x\nanswer_format: y\nquery: q\n")
    with pytest.raises(KluebookError, match="named by its file"):
        load_template(path)
    path.write_text("- a list\n")
    with pytest.raises(KluebookError, match="not a mapping"):
        load_template(path)


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
    template = task_template("wos")
    assert listed_slots(template.instruction.replace("\n", " ")) == set(ontology)


def test_a_template_is_named_by_its_file_in_the_task_folder_never_by_a_path():
    folder = get_task("nli").folder
    for name in ("../prompts/standard", "prompts/../standard", str(folder / "prompts/standard")):
        with pytest.raises(KluebookError, match="no such template; known: brief, reworded"):
            task_template("nli", name)
