"""Demonstrations: drawn from the train split by a recorded seed, the same draw in every
process; more shots than the split has is refused in one line."""

import os
import subprocess
import sys

import pytest

from kluebook.common.errors import KluebookError
from kluebook.prompting.demonstrations import draw_demonstrations
from kluebook.tasks.prompt_items import PromptItem

TRAIN = [PromptItem(key=f"train-{i}", fields={"title": str(i)}, answer="정치") for i in range(50)]

DRAW = """
from kluebook.prompting.demonstrations import draw_demonstrations
from kluebook.tasks.prompt_items import PromptItem
train = [PromptItem(key=f"train-{i}", fields={"title": str(i)}, answer="정치") for i in range(50)]
print([shot.key for shot in draw_demonstrations(train, 5, seed=3)])
"""


def keys(shots):
    return [shot.key for shot in shots]


def test_a_seed_gives_one_draw_and_another_seed_another():
    first = draw_demonstrations(TRAIN, 5, seed=1)
    assert keys(first) == keys(draw_demonstrations(TRAIN, 5, seed=1))
    assert keys(first) != keys(draw_demonstrations(TRAIN, 5, seed=2))
    assert len(set(keys(first))) == 5 and set(keys(first)) <= set(keys(TRAIN))  # no repeats


def test_the_draw_is_the_same_under_every_hash_seed():
    def draw(hash_seed):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        command = [sys.executable, "-c", DRAW]
        return subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout

    assert draw("1") == draw("2")
    assert draw("1").strip() == str(keys(draw_demonstrations(TRAIN, 5, seed=3)))


def test_zero_shots_draws_nothing_and_the_whole_split_can_be_drawn():
    assert draw_demonstrations(TRAIN, 0, seed=1) == []
    assert sorted(keys(draw_demonstrations(TRAIN, 50, seed=1))) == sorted(keys(TRAIN))


def test_more_shots_than_the_train_split_holds_is_one_line():
    with pytest.raises(KluebookError) as error:
        draw_demonstrations(TRAIN[:3], 5, seed=1)
    assert str(error.value) == "shots=5 is more than the 3 items of the train split: use at most 3"
    with pytest.raises(KluebookError, match="cannot be negative"):
        draw_demonstrations(TRAIN, -1, seed=1)
