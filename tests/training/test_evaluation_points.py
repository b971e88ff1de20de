"""The paper profile scores dev where KLUE-baseline's trainer did.

The baseline ran PyTorch Lightning 1.1 with `val_check_interval=0.25`: validation after every
`int(0.25 x batches per epoch)` batches, counted from the start of each epoch, so batches left
over at an epoch's end are trained on but never scored. The reference here is a real Lightning
Trainer (`lightning` 2.x, whose rule is the same as 1.1's: `val_check_batch =
max(1, int(batches x interval))`, checked on the batch index within the epoch, optimizer step
on the epoch's last batch under gradient accumulation) running a one-weight model, recording
`trainer.global_step` (optimizer steps taken) at each validation. kluebook's points are the
optimizer steps after which the HF Trainer evaluates.

Train sizes: the official train files (YNAT 45,678; STS 11,668; NLI 24,998; NER 21,008; RE
32,470; DP 10,000). Two are approximations: MRC trains on windows, not questions, and counting
them needs the tokenizer, so its 17,554 questions stand in; WoS trains on user turns, and 56,000
turns (7 per dialogue over 8,000 dialogues) is a representative count, not the real one.
"""

import math

import pytest
import torch
from conftest import dummy_fine_tune, fit_with_lightning

from kluebook.tasks import get_task
from kluebook.training.fine_tuning import batches_per_epoch, evaluation_steps
from kluebook.training.official_trainer import (
    lightning_check_batch,
    lightning_evaluation_steps,
    trainer_evaluation_steps,
)
from kluebook.training.recipes import resolve_recipe

lightning = pytest.importorskip("lightning")

OFFICIAL_TRAIN_SIZES = {
    "ynat": 45_678,
    "sts": 11_668,
    "nli": 24_998,
    "ner": 21_008,
    "re": 32_470,
    "dp": 10_000,
    "mrc": 17_554,  # questions; the real count is of windows (approximation)
    "wos": 56_000,  # user turns: a representative count, 7 per dialogue (assumption)
}
MODELS = ("klue/roberta-base", "klue/roberta-large")
# Batches per epoch that make the interval arithmetic awkward: int(11/4) = 2 gives five
# checks an epoch; 25 and 27 leave one and three batches unscored; 13 gives an odd interval
# (3), so with accumulation 2 a check falls between two optimizer steps.
AWKWARD = [(batches, accumulation) for batches in (11, 25, 27, 13) for accumulation in (1, 2)]


def lightning_points(batches: int, epochs: int, accumulation: int, evals: int = 4) -> list[int]:
    """`trainer.global_step` at every validation of a real Lightning run."""

    class OneWeight(lightning.LightningModule):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.zeros(1))
            self.points = []

        def training_step(self, batch, batch_idx):
            return (self.weight * batch[0]).sum()

        def validation_step(self, batch, batch_idx):
            return None

        def on_validation_start(self):
            if not self.trainer.sanity_checking:
                self.points.append(self.trainer.global_step)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.0)

    module = OneWeight()
    fit_with_lightning(
        module,
        batches,
        max_epochs=epochs,
        val_check_interval=1.0 / evals,
        accumulate_grad_batches=accumulation,
    )
    return module.points


@pytest.mark.parametrize(("batches", "accumulation"), AWKWARD)
def test_awkward_epochs_are_scored_where_lightning_scores_them(batches, accumulation):
    assert lightning_evaluation_steps(batches, 3, 4, accumulation) == lightning_points(
        batches, 3, accumulation
    )


@pytest.mark.parametrize(("batches", "evals"), [(8, 4), (7, 2), (10, 1), (9, 3)])
def test_short_epochs_and_other_check_counts_match_lightning(batches, evals):
    for accumulation in (1, 2):
        expected = lightning_points(batches, 2, accumulation, evals)
        assert lightning_evaluation_steps(batches, 2, evals, accumulation) == expected


def test_a_check_interval_shorter_than_the_accumulation_scores_each_weight_state_once():
    """3 batches an epoch, 4 checks asked: Lightning checks after every batch, so with
    accumulation 2 it validates the untrained model (step 0) and the same weights twice
    (batches 3 and 4 surround no optimizer step). The HF Trainer evaluates after optimizer
    steps only, once each: kluebook keeps the distinct states after step 0. No official recipe
    comes near this (their intervals are hundreds of batches)."""
    lightning_run = lightning_points(3, 2, 2)
    assert lightning_run == [0, 1, 2, 2, 3, 4]
    assert lightning_evaluation_steps(3, 2, 4, 2) == [1, 2, 3, 4]


@pytest.mark.parametrize(("batches", "accumulation"), [(11, 1), (27, 1), (11, 2), (13, 2)])
def test_the_hf_trainer_evaluates_exactly_at_those_steps(tmp_path, batches, accumulation):
    """fine_tune's Trainer, with the `lightning` schedule, scores dev at Lightning's points and
    nowhere else (not at the last step, where the Trainer would add an evaluation)."""
    _, scored_at = dummy_fine_tune(
        tmp_path, batches, {"epochs": 3, "gradient_accumulation": accumulation}
    )
    assert scored_at == lightning_points(batches, 3, accumulation)


def test_the_trainer_schedule_is_still_there_for_the_smoke_profile(tmp_path):
    changes = {"eval_schedule": "trainer", "lr_schedule": "trainer", "optimizer": "adamw_torch"}
    _, scored_at = dummy_fine_tune(tmp_path, 11, changes)
    # round(11 / 4) = 3: every third step, and the last one (33) although 33 is a multiple.
    assert scored_at == trainer_evaluation_steps(11, 3, 4) == list(range(3, 34, 3))


def official_cases():
    for task, size in OFFICIAL_TRAIN_SIZES.items():
        for model in MODELS:
            recipe = resolve_recipe(get_task(task), model, "paper", {})
            yield pytest.param(task, model, size, recipe, id=f"{task}-{model.split('/')[1]}")


@pytest.mark.slow
@pytest.mark.parametrize(("task", "model", "size", "recipe"), list(official_cases()))
def test_official_sizes_are_scored_where_lightning_scored_them(task, model, size, recipe):
    """Every task and checkpoint size, its official train size and paper recipe, all epochs
    (about 2 minutes of Lightning loops in all)."""
    batches = batches_per_epoch(size, recipe)
    expected = lightning_points(
        batches, int(recipe.epochs), recipe.gradient_accumulation, recipe.evals_per_epoch
    )
    assert evaluation_steps(size, recipe) == expected


@pytest.mark.parametrize(
    ("task", "model", "last", "total"),
    [
        # NLI: 782 batches, check every 195: last check after batch 780 of epoch 5.
        ("nli", "klue/roberta-base", 4 * 782 + 780, 5 * 782),
        # RE base: 1,015 batches, check every 253: last after batch 1,012 of epoch 3.
        ("re", "klue/roberta-base", 2 * 1015 + 1012, 3 * 1015),
        # YNAT: 1,428 batches, check every 357: the epoch's last batch is a check.
        ("ynat", "klue/roberta-base", 4 * 1428, 4 * 1428),
        # WoS large (batch 8, accumulation 2): 7,000 batches, 3,500 steps an epoch, check
        # every 1,750 batches = 875 steps; the last check is the last step.
        ("wos", "klue/roberta-large", 5 * 3500, 5 * 3500),
    ],
)
def test_last_evaluation_of_official_runs(task, model, last, total):
    recipe = resolve_recipe(get_task(task), model, "paper", {})
    size = OFFICIAL_TRAIN_SIZES[task]
    steps = evaluation_steps(size, recipe)
    assert steps[-1] == last
    batches = batches_per_epoch(size, recipe)
    assert total == recipe.epochs * math.ceil(batches / recipe.gradient_accumulation)
    assert len(steps) == recipe.evals_per_epoch * recipe.epochs


def test_the_check_interval_is_lightnings_integer_part():
    assert [lightning_check_batch(b, 4) for b in (3, 4, 11, 25, 27, 782)] == [1, 1, 2, 6, 6, 195]
    assert lightning_check_batch(7, 2) == 3 and lightning_check_batch(10, 1) == 10
