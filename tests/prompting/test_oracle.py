"""The oracle test of the prompted track: gold answers, written in each template's answer format
and answer words (or, for a ranked task, log-likelihoods peaked on the gold), read back as a run
reads them and scored by the task's official `score`, give every official metric its maximum,
for every template of every task (each its own case); garbage, and answers of a wrong structure
or truncated, written in each template's words, lower it, and those the parser cannot read are
counted and scored as the always-wrong fallback.

Run on every task's smoke dev data and, where KLUEBOOK_DATA_DIR has them, the real dev files.
"""

import math
from functools import cache
from pathlib import PurePosixPath

import pytest

from kluebook.common.json_files import read_jsonl, write_jsonl
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.scoring.predictions import score_predictions
from kluebook.tasks import all_tasks, get_task, task_module
from kluebook.tasks.prompt_answers import answer_text, other_than
from kluebook.tasks.prompt_items import Ungrounded, template_names

# Every task that can be prompted (its folder holds templates), and each of its templates.
TASKS = tuple(name for name, task in all_tasks().items() if template_names(task.folder))
TEMPLATES = [(task, name) for task in TASKS for name in template_names(get_task(task).folder)]
PEAK = -30.0  # the log-likelihood of every choice but the one a test peaks on
GARBAGE = "잘 모르겠습니다.\n다시 물어봐 주세요."
RANKED = [name for name in TASKS if task_template(name).mode == "rank"]
GENERATED = [name for name in TASKS if task_template(name).mode == "generate"]


def real_dev_candidates(dev: str) -> list[str]:
    """The dev file, then its reduced copy, then its sample, as KLUEBOOK_DATA_DIR may hold them."""
    path = PurePosixPath(dev)
    return [dev, *(str(path.with_stem(path.stem + tail)) for tail in (".partial", "_sample_10"))]


@pytest.fixture(params=TASKS)
def task_name(request):
    return request.param


@cache
def smoke_dev(task_name: str) -> list[dict]:
    return task_module(get_task(task_name)).generate(seed=0)["dev"]


@pytest.fixture(
    params=["smoke", pytest.param("real", marks=[pytest.mark.realdata, pytest.mark.slow])]
)
def dev(request, task_name, klue_file):
    """The dev records a case runs on: the task's smoke data, or its real dev file."""
    if request.param == "smoke":
        return smoke_dev(task_name)
    task = get_task(task_name)
    return task_module(task).read_official(klue_file(*real_dev_candidates(task.files["dev"])))


def official(task, scores: dict) -> dict:
    return {metric.key: scores[metric.key] for metric in task.metrics}


def templates(task_name: str) -> list[str]:
    return template_names(get_task(task_name).folder)


def read(task_name: str, name: str, item, text: str):
    """A generated answer read as a run with the template `name` reads it."""
    template = task_template(task_name, name)
    module = task_prompting(task_name)
    return module.parse_answer(item, answer_text(template, text))


def scored(task_name: str, records: list[dict], items, lines: list) -> tuple[dict, int]:
    """The official metrics of parsed lines (None: unreadable, scored as the fallback; an
    ungrounded answer as its line, or the fallback) and the number of answers not read
    (unreadable or ungrounded)."""
    module = task_prompting(task_name)
    rows = []
    for item, line in zip(items, lines, strict=True):
        if isinstance(line, Ungrounded):
            line = line.line
        rows.append(line if line is not None else module.fallback_prediction(item))
    task = get_task(task_name)
    unread = sum(line is None or isinstance(line, Ungrounded) for line in lines)
    return official(task, score_predictions(task, records, rows)), unread


def maximum(task_name: str, records: list[dict]) -> dict:
    task = get_task(task_name)
    return official(
        task, score_predictions(task, records, task_module(task).gold_predictions(records))
    )


def peaked(choices: tuple[str, ...], on: str) -> dict[str, float]:
    return {choice: 0.0 if choice == on else PEAK for choice in choices}


def sts_gold_logprobs(item, record) -> dict[str, float]:
    """Log-likelihoods whose expected score is the gold: its weight split between the two whole
    scores around it."""
    value = record["labels"]["real-label"]
    low = min(int(value), 4)
    weights = {str(low): low + 1 - value, str(low + 1): value - low}
    return {c: math.log(weights[c]) if weights.get(c) else -math.inf for c in item.choices}


def gold_logprobs(task_name: str, items, records) -> list[dict[str, float]]:
    if task_name == "sts":
        return [sts_gold_logprobs(i, r) for i, r in zip(items, records, strict=True)]
    return [peaked(item.choices, item.answer) for item in items]


def assert_all_lower(scores: dict, best: dict) -> None:
    for key, value in scores.items():
        if best[key] is not None:
            assert value < best[key] - 1e-9, key


def test_every_template_of_every_task_is_a_case():
    assert set(TASKS) >= {"ynat", "sts", "nli", "ner", "re", "dp", "mrc", "wos"}
    assert {name for _, name in TEMPLATES} >= {"standard", "brief", "reworded"}
    assert len(TEMPLATES) == sum(len(templates(task)) for task in TASKS) >= 3 * len(TASKS)


@pytest.mark.parametrize(("task_name", "name"), TEMPLATES)
def test_gold_answers_score_the_maximum_with_every_template(task_name, name, dev, tmp_path):
    template = task_template(task_name, name)
    module = task_prompting(task_name)
    items = module.prompt_items(dev)
    best = maximum(task_name, dev)
    assert all(value is None or value == pytest.approx(100.0) for value in best.values())
    if template.mode == "rank":
        # As a run writes them: each line keeps every choice's log-likelihood, which the
        # official score reads past, through a predictions file.
        write_jsonl(
            tmp_path / "predictions.jsonl",
            [
                {**module.rank_prediction(item, logprobs), "choice_logprobs": logprobs}
                for item, logprobs in zip(items, gold_logprobs(task_name, items, dev), strict=True)
            ],
        )
        lines = read_jsonl(tmp_path / "predictions.jsonl")
    else:
        lines = [read(task_name, name, item, template.written(item.answer)) for item in items]
    scores, unreadable = scored(task_name, dev, items, lines)
    assert unreadable == 0, name
    assert scores == {key: pytest.approx(value) for key, value in best.items()}, name


def test_gold_answers_read_through_the_prefix_and_a_next_example(task_name, dev):
    """A model that repeats the answer prefix and goes on to invent a next example still gives
    the gold prediction (a ranked task's generated answer is one of its choices), with every
    template."""
    module = task_prompting(task_name)
    items = module.prompt_items(dev)
    for name in templates(task_name):
        template = task_template(task_name, name)
        written = [
            f"  {template.answer_prefix} {template.written(i.answer)}\n\n{template.query}"
            for i in items
        ]
        lines = [read(task_name, name, i, text) for i, text in zip(items, written, strict=True)]
        if task_name == "sts":  # a generated score is the whole score written, not the gold
            assert None not in lines
            continue
        scores, unreadable = scored(task_name, dev, items, lines)
        assert unreadable == 0, name
        best = maximum(task_name, dev)
        assert scores == {key: pytest.approx(v) for key, v in best.items()}, name


@pytest.mark.parametrize(("task_name", "name"), TEMPLATES)
def test_garbage_is_unreadable_and_scores_lower(task_name, name, dev):
    module = task_prompting(task_name)
    items = module.prompt_items(dev)
    lines = [read(task_name, name, item, GARBAGE) for item in items]
    scores, unreadable = scored(task_name, dev, items, lines)
    assert unreadable == len(items)
    assert_all_lower(scores, maximum(task_name, dev))


@pytest.mark.parametrize("task_name", RANKED)
def test_a_ranked_task_peaked_on_a_wrong_choice_scores_lower(task_name, dev):
    module = task_prompting(task_name)
    items = module.prompt_items(dev)
    lines = [
        module.rank_prediction(item, peaked(item.choices, other_than(item.choices, item.answer)))
        for item in items
    ]
    scores, _ = scored(task_name, dev, items, lines)
    assert_all_lower(scores, maximum(task_name, dev))


# Answers in a wrong structure, for each task answered by generation: how the gold answer is
# corrupted, and which items the parser must then fail to read.
WRONG_STRUCTURE = {
    "ner": (lambda a: a.replace("[", "<").replace("]", ">"), lambda a: "[" in a),
    "dp": (lambda a: a.replace("\t", ","), lambda a: True),
    "mrc": (lambda a: f"{a}\n지문에 그렇게 나옵니다.", lambda a: True),
    "wos": (lambda a: a.replace("=", ": "), lambda a: "=" in a),
}


@pytest.mark.parametrize(("task_name", "name"), [c for c in TEMPLATES if c[0] in GENERATED])
def test_answers_in_a_wrong_structure_are_unreadable(task_name, name, dev):
    template = task_template(task_name, name)
    module = task_prompting(task_name)
    corrupt, breaks = WRONG_STRUCTURE[task_name]
    items = module.prompt_items(dev)
    lines = [read(task_name, name, item, corrupt(template.written(item.answer))) for item in items]
    scores, unreadable = scored(task_name, dev, items, lines)
    expected = sum(breaks(item.answer) for item in items)
    assert expected > 0
    unread = [line is None or isinstance(line, Ungrounded) for line in lines]
    assert unread == [breaks(item.answer) for item in items]
    assert unreadable == expected
    assert_all_lower(scores, maximum(task_name, dev))


@pytest.mark.parametrize(("task_name", "name"), [c for c in TEMPLATES if c[0] in GENERATED])
def test_truncated_answers_score_lower(task_name, name, dev):
    """An answer cut in half is unreadable where its structure breaks (the tagged sentence, the
    list of arcs) and a wrong answer where it does not (a shorter span, fewer slots), with
    every template."""
    template = task_template(task_name, name)
    module = task_prompting(task_name)
    items = module.prompt_items(dev)
    written = [template.written(item.answer) for item in items]
    lines = [
        read(task_name, name, i, a[: len(a) // 2]) for i, a in zip(items, written, strict=True)
    ]
    scores, unreadable = scored(task_name, dev, items, lines)
    if task_name in ("ner", "dp"):
        assert unreadable == len(items)
    assert_all_lower(scores, maximum(task_name, dev))
