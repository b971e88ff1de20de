"""Smoke dev sets with imperfect predictions of every task, for the bootstrap tests."""

import random

import pytest
from conftest import load_script

from kluebook.common.paths import CHECKOUT
from kluebook.tasks import all_tasks

bootstrap_speed = load_script(CHECKOUT / "benchmarks" / "bootstrap_speed.py")


@pytest.fixture(scope="session")
def imperfect_predictions():
    """benchmarks/bootstrap_speed.py's gold-with-errors prediction lines, for any task."""
    return bootstrap_speed.imperfect_predictions


@pytest.fixture(scope="session")
def smoke_dev():
    """task -> (gold records, imperfect prediction lines) on the task's generated dev set."""
    cache = {}

    def get(task: str):
        if task not in cache:
            module = all_tasks()[task].module
            records = module.generate(seed=5, **all_tasks()[task].smoke_data)["dev"]
            rows = bootstrap_speed.imperfect_predictions(
                task, module.gold_predictions(records), random.Random(7)
            )
            cache[task] = records, rows
        return cache[task]

    return get
