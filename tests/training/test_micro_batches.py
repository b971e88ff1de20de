"""`micro_batches`: a batch of 16 computed as 4 micro-batches of 4 with gradient accumulation
keeps the recipe: the same optimizer steps, learning rates and evaluation points, and (on
identical examples) the same weights, so a card that cannot hold the batch still runs it."""

import pytest
from conftest import dummy_fine_tune

from kluebook.tasks import get_task
from kluebook.training.fine_tuning import training_arguments
from kluebook.training.recipes import resolve_recipe


def schedule(result) -> dict[int, float]:
    """The learning rate at every logged step."""
    return {
        entry["step"]: entry["learning_rate"]
        for entry in result.trainer.state.log_history
        if "learning_rate" in entry
    }


@pytest.mark.slow
@pytest.mark.parametrize("train_size", [96, 90])  # whole batches; a short last batch
def test_four_micro_batches_of_four_keep_the_schedule_of_a_batch_of_sixteen(tmp_path, train_size):
    recipe = {"batch_size": 16, "epochs": 2, "warmup_ratio": 0.1}
    # Rising dev scores: the model kept at the end is the last one (with equal scores it would
    # be the first checkpoint, taken before the weight moved).
    rising = range(100)
    whole, whole_points = dummy_fine_tune(tmp_path / "whole", train_size, recipe, rising)
    split, split_points = dummy_fine_tune(
        tmp_path / "split", train_size, {**recipe, "micro_batches": 4}, rising
    )
    assert split_points == whole_points and len(whole_points) > 4
    assert split.trainer.state.global_step == whole.trainer.state.global_step
    assert schedule(split) == pytest.approx(schedule(whole))
    assert whole.trainer.model.weight.item() != 0.0  # trained: the last weights are kept
    assert split.trainer.model.weight.item() == pytest.approx(
        whole.trainer.model.weight.item(), rel=1e-6
    )


def test_the_trainer_gets_the_micro_batch_and_the_accumulation():
    recipe = resolve_recipe(
        get_task("wos"), "klue/roberta-large", "paper", {"micro_batches": 2}
    )  # the official large recipe: batch 8, accumulation 2
    args = training_arguments(recipe, "unused", seed=1, train_size=1000)
    assert (args.per_device_train_batch_size, args.gradient_accumulation_steps) == (4, 4)
