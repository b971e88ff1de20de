"""The learning-rate schedule and optimizer of the paper profile are KLUE-baseline's.

`lightning_base.py`: `total_steps = dataset_size / (train_batch_size x accumulation x GPUs) x
max_epochs` (a float), warm-up `ceil(total_steps x warmup_ratio)`, transformers'
`get_linear_schedule_with_warmup` on it, and transformers 3.5.1's `AdamW` on two parameter
groups. `run_all.sh` ran RE with roberta-large on two GPUs (`--gpus 0 1`, DataParallel): the
batch of 16 was split over the GPUs, not doubled, but the step count was halved, so warm-up and
decay ran on half of the real steps and the learning rate was 0 for the second half.
"""

import math

import pytest
import torch

from kluebook.common.errors import KluebookError
from kluebook.tasks import get_task
from kluebook.training.fine_tuning import official_optimizers, steps_per_epoch
from kluebook.training.official_trainer import (
    TransformersV3AdamW,
    linear_factor,
    official_parameter_groups,
    official_total_steps,
    official_warmup_steps,
)
from kluebook.training.recipes import Recipe, resolve_recipe


def scheduler_for(task: str, model: str, train_size: int):
    recipe = resolve_recipe(get_task(task), model, "paper", {})
    optimizer, scheduler = official_optimizers(torch.nn.Linear(2, 2), recipe, train_size)
    return recipe, optimizer, scheduler


def factor(scheduler, step: int) -> float:
    return scheduler.lr_lambdas[0](step)


def test_re_large_runs_its_schedule_on_half_the_steps():
    recipe, optimizer, scheduler = scheduler_for("re", "klue/roberta-large", 32_470)
    assert recipe.lr_schedule_gpus == 2
    real_steps = 10 * steps_per_epoch(32_470, recipe)
    assert real_steps == 20_300  # 2,030 batches of 16 an epoch, 10 epochs
    total = 32_470 / (16 * 2) * 10
    assert total == 10_146.875
    warmup = math.ceil(0.2 * total)
    assert warmup == 2_030  # about one real epoch
    assert factor(scheduler, 0) == 0.0
    assert factor(scheduler, 1015) == pytest.approx(1015 / 2030)
    assert factor(scheduler, 2030) == 1.0
    # Halfway through the decay, at about a quarter of the real steps.
    assert factor(scheduler, 6088) == pytest.approx((total - 6088) / (total - 2030))
    assert factor(scheduler, 10_146) == pytest.approx(0.875 / (total - 2030))
    assert [factor(scheduler, s) for s in (10_147, 15_000, real_steps)] == [0.0, 0.0, 0.0]
    assert optimizer.param_groups[0]["lr"] == 0.0  # warm-up starts at 0, as LambdaLR does


def test_re_base_runs_the_whole_schedule():
    recipe, _, scheduler = scheduler_for("re", "klue/roberta-base", 32_470)
    assert recipe.lr_schedule_gpus == 1
    total = 32_470 / 32 * 3  # 3,044.06 of 3,045 real steps
    assert factor(scheduler, math.ceil(0.1 * total)) == 1.0
    assert factor(scheduler, 3044) == pytest.approx((total - 3044) / (total - 305))
    assert factor(scheduler, 3045) == 0.0


def test_nli_ends_its_decay_before_the_last_steps():
    """24,998 / 32 x 5 = 3,905.94 scheduled steps of 3,910 real ones: 391 warm-up steps, and
    the learning rate is 0 for the last four steps."""
    total = official_total_steps(24_998, 32, 5)
    assert total == 3905.9375
    assert official_warmup_steps(total, 0.1) == 391
    assert linear_factor(3905, 391, total) == pytest.approx(0.9375 / (total - 391))
    assert [linear_factor(s, 391, total) for s in range(3906, 3911)] == [0.0] * 5


def test_no_warmup_starts_at_the_peak():
    _, _, scheduler = scheduler_for("ner", "klue/roberta-base", 21_008)
    assert factor(scheduler, 0) == 1.0


def test_the_gpu_divisor_is_recorded_and_only_for_re_large():
    for task in ("ynat", "sts", "nli", "ner", "re", "dp", "mrc", "wos"):
        for model in ("klue/roberta-base", "klue/roberta-large"):
            for profile in ("paper", "smoke"):
                recipe = resolve_recipe(get_task(task), model, profile, {})
                expected = (
                    2 if (task, model, profile) == ("re", "klue/roberta-large", "paper") else 1
                )
                assert recipe.as_dict()["lr_schedule_gpus"] == expected


def test_the_gpu_divisor_needs_the_official_schedule():
    recipe = Recipe(
        **{
            **resolve_recipe(get_task("re"), "klue/roberta-large", "paper", {}).as_dict(),
            "lr_schedule": "trainer",
        }
    )
    with pytest.raises(KluebookError, match="lr_schedule_gpus"):
        official_optimizers(torch.nn.Linear(2, 2), recipe, 100)


def test_transformers3_adamw_by_hand():
    """Two steps on one weight, gradient 1e-8 (where epsilon matters) then 1, lr 0.1, weight
    decay 0.5: the update uses eps outside the bias correction, then decays the new weight."""
    weight = torch.nn.Parameter(torch.tensor([1.0], dtype=torch.float64))
    optimizer = TransformersV3AdamW([weight], lr=0.1, eps=1e-8, weight_decay=0.5)
    expected = 1.0
    m = v = 0.0
    for t, g in enumerate((1e-8, 1.0), start=1):
        weight.grad = torch.tensor([g], dtype=torch.float64)
        optimizer.step()
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        step_size = 0.1 * math.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        expected -= step_size * m / (math.sqrt(v) + 1e-8)
        expected -= 0.1 * 0.5 * expected
        assert weight.item() == pytest.approx(expected, rel=1e-12)
    # torch's AdamW puts eps inside the bias correction: a tiny first gradient moves the
    # weight 16 times further.
    other = torch.nn.Parameter(torch.tensor([1.0], dtype=torch.float64))
    ours = torch.nn.Parameter(torch.tensor([1.0], dtype=torch.float64))
    for parameter, cls in ((other, torch.optim.AdamW), (ours, TransformersV3AdamW)):
        parameter.grad = torch.tensor([1e-8], dtype=torch.float64)
        cls([parameter], lr=0.1, eps=1e-8, weight_decay=0.0).step()
    # torch: lr x g / (g + eps) = 0.05; transformers 3.5.1: lr x sqrt(1e-3) / 0.1 x
    # 1e-9 / (sqrt(1e-19) + eps) = 0.0031.
    assert 1 - other.item() == pytest.approx(0.05, rel=1e-6)
    assert 1 - ours.item() == pytest.approx(math.sqrt(1e-3) * 1e-9 / (math.sqrt(1e-19) + 1e-8))


def test_parameter_groups_follow_the_baseline_names():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.dense = torch.nn.Linear(2, 2)
            self.LayerNorm = torch.nn.LayerNorm(2)
            self.lstm = torch.nn.LSTM(2, 2)
            self.norm = torch.nn.LayerNorm(2)

    block = Block()
    decay, no_decay = official_parameter_groups(block.named_parameters(), 0.01)
    names = {id(p): n for n, p in block.named_parameters()}
    assert sorted(names[id(p)] for p in decay["params"]) == [
        "dense.weight",
        "lstm.weight_hh_l0",
        "lstm.weight_ih_l0",
        "norm.weight",  # the baseline decays a norm weight not called LayerNorm
    ]
    assert decay["weight_decay"] == 0.01 and no_decay["weight_decay"] == 0.0
    assert "LayerNorm.weight" in {names[id(p)] for p in no_decay["params"]}


@pytest.mark.parametrize("family", ["bert", "roberta"])
def test_parameter_groups_of_transformers_5_models_match_the_names_of_transformers_3(family):
    """transformers 3.5.1 named the norms of BERT and RoBERTa `LayerNorm`: the baseline spared
    every bias and those norms' weights. The same parameters are spared in transformers 5."""
    from transformers import AutoConfig, AutoModelForSequenceClassification

    config = AutoConfig.for_model(
        family,
        vocab_size=16,
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        type_vocab_size=2 if family == "bert" else 1,
        num_labels=3,
    )
    model = AutoModelForSequenceClassification.from_config(config)
    decay, no_decay = official_parameter_groups(model.named_parameters(), 0.01)
    names = {id(p): n for n, p in model.named_parameters()}
    prefix = family  # the encoder's attribute in the task models of both versions
    norms = ["embeddings", "encoder.layer.0.attention.output", "encoder.layer.0.output"]
    expected_spared = {f"{prefix}.{norm}.LayerNorm.weight" for norm in norms}
    expected_spared |= {n for n in names.values() if n.endswith(".bias")}
    assert {names[id(p)] for p in no_decay["params"]} == expected_spared
    # 3 norm weights; 11 biases: 3 norms, q k v, 3 dense layers of the block, and the head
    # (BERT: pooler and classifier; RoBERTa: the classification head's dense and projection)
    assert len(expected_spared) == 3 + 11
    assert f"{prefix}.embeddings.word_embeddings.weight" in {names[id(p)] for p in decay["params"]}
