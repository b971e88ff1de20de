"""Bad run options are refused in one line before any run starts: values of the wrong type or
range, refused recipe combinations, and a model folder that is not there."""

import pytest

from kluebook.common.errors import KluebookError
from kluebook.running import run_plan


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("epochs=abc", "error: epochs must be a number, got 'abc'"),
        ("learning_rate=-1", "error: learning_rate must be > 0, got -1"),
        # Typed by the task's overrides model: a wrong type, an unknown choice.
        ("max_length=abc", "error: max_length must be an integer, got 'abc'"),
        (
            "optimizer=sgd",
            "error: recipe switch optimizer must be one of adamw_transformers3, adamw_torch, "
            "got 'sgd'",
        ),
    ],
)
def test_a_bad_value_is_one_line_before_any_run(kluebook, tmp_path, setting, message):
    result = kluebook(tmp_path, "run", "--tasks", "ynat", "--seeds", "1", "--set", setting)
    assert result.returncode == 2
    assert result.stderr.strip() == message
    assert not (tmp_path / "results").exists() and not (tmp_path / "book").exists()


def test_a_model_folder_that_is_not_there_is_named(kluebook, tmp_path):
    result = kluebook(tmp_path, "run", "--tasks", "ynat", "--models", "./no/such/model")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: model ./no/such/model: no such folder"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"batch_size": 16, "micro_batches": 3}, "micro_batches 3 must divide batch_size 16"),
        ({"micro_batches": 0}, "micro_batches must be >= 1, got 0"),
        ({"eval_batch_size": 2.5}, "eval_batch_size must be an integer, got 2.5"),
        ({"warmup_ratio": 1.5}, "warmup_ratio must be between 0 and 1"),
        ({"fp16": True, "bf16": True}, "fp16 and bf16 are two autocast precisions"),
        ({"fp16": "yes"}, "fp16 is a switch: true or false"),
        ({"train_limit": "many"}, "train_limit must be a whole number >= 0, got 'many'"),
        ({"micro_batches": 2}, "not with group_by_length"),  # the smoke recipe groups by length
    ],
)
def test_refused_values_and_combinations(extra, message):
    with pytest.raises(KluebookError, match=message):
        run_plan.plan("smoke", tasks=["ynat"], seeds=[1], extra=extra)


def test_every_recipe_field_can_be_set_per_run():
    extra = {"eval_batch_size": 8, "weight_decay": 0.01, "micro_batches": 4, "batch_size": 16}
    specs = run_plan.plan(
        "smoke", tasks=["ynat"], seeds=[1], extra={**extra, "group_by_length": False}
    )
    assert specs[0].parameters()["micro_batches"] == 4
