"""Smoke dev sets with imperfect predictions of every task, for the bootstrap tests."""

import importlib.util
import random
from pathlib import Path

import pytest

from kluebook.tasks import all_tasks

_BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "bootstrap_speed.py"
_spec = importlib.util.spec_from_file_location("bootstrap_speed", _BENCHMARK)
bootstrap_speed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bootstrap_speed)


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
