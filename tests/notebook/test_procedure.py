"""The training procedure in words (kluebook.notebook.procedure) says what the run's recipe does,
for the smoke and the paper recipes and a run's overrides; recipe values are shown at full
precision."""

import pytest

from kluebook.notebook.procedure import recipe_values, training_procedure, value_text
from kluebook.tasks import available_tasks, get_task
from kluebook.training.recipes import resolve_recipe

TINY = "kluebook/tiny-roberta"


def described(task: str, model: str, profile: str, **overrides) -> str:
    found = get_task(task)
    return training_procedure(found, resolve_recipe(found, model, profile, overrides), "headline")


def test_the_smoke_recipe_is_described_as_it_trains():
    text = described("ynat", TINY, "smoke")
    assert text.startswith("Dev Macro F1 is measured once per epoch, after each epoch's worth")
    assert "Hugging Face Trainer" in text and "4 times" not in text
    assert "Training runs 5 epochs, without early stopping." in text
    assert "Batches are padded to their longest headline" in text and "(64 tokens)" in text
    assert "Training batches are grouped by length" in text


def test_the_paper_recipe_is_described_as_the_official_code_trains():
    text = described("ynat", "klue/roberta-base", "paper")
    assert text.startswith("Dev Macro F1 is measured 4 times per epoch, after every 1/4")
    assert "PyTorch Lightning 1.1" in text
    assert "Training runs 4 epochs, without early stopping." in text
    assert "padded to their longest headline" in text and "(128 tokens)" in text
    assert "grouped by length" not in text
    assert "drawn in uniform random order, as in the official code" in text
    ner = described("ner", "klue/roberta-base", "paper")
    assert "Training runs up to 3 epochs and stops early after 5 evaluations in a row" in ner
    assert "without a new best dev Character F1" in ner
    assert "Every headline is padded to `max_length` (510 tokens), as in the official code" in ner
    large = described("dp", "klue/roberta-large", "paper")
    assert large.startswith("Dev UAS is measured") and "Training runs 15 epochs" in large


def test_a_runs_overrides_change_what_is_said():
    text = described(
        "ynat",
        "klue/roberta-base",
        "paper",
        evals_per_epoch=2,
        eval_schedule="trainer",
        group_by_length=True,
        early_stopping_patience=3,
        epochs=2.5,
    )
    assert text.startswith("Dev Macro F1 is measured twice per epoch, every 1/2 of an epoch's")
    assert "up to 2.5 epochs and stops early after 3 evaluations in a row" in text
    assert "grouped by length" in text
    assert "Training runs 1 epoch, without" in described("ynat", TINY, "smoke", epochs=1)


@pytest.mark.parametrize("task", available_tasks())
@pytest.mark.parametrize(
    ("model", "profile"),
    [(TINY, "smoke"), ("klue/roberta-base", "paper"), ("klue/roberta-large", "paper")],
)
def test_every_task_and_profile_is_described_by_its_recipe(task, model, profile):
    found = get_task(task)
    recipe = resolve_recipe(found, model, profile, {})
    text = training_procedure(found, recipe, "input")
    times = {1: "once", 2: "twice"}.get(recipe.evals_per_epoch, f"{recipe.evals_per_epoch} times")
    assert f"measured {times} per epoch" in text
    assert ("PyTorch Lightning" in text) == (recipe.eval_schedule == "lightning")
    assert ("grouped by length" in text) == recipe.group_by_length
    assert ("Every input is padded to `max_length`" in text) == recipe.pad_to_max_length
    assert f"({recipe.max_length} tokens)" in text
    assert ("without early stopping" in text) == (recipe.early_stopping_patience is None)


def test_recipe_values_are_shown_at_full_precision():
    assert value_text(1e-08) == "1e-08" and value_text(5e-05) == "5e-05"
    assert value_text(0.1) == "0.1" and value_text(1 / 3) == "0.3333333333333333"
    assert value_text(32) == "32" and value_text(None) == "None" and value_text(True) == "True"
    paper = recipe_values(resolve_recipe(get_task("ynat"), "klue/roberta-base", "paper", {}))
    assert paper["adam_epsilon"] == "1e-08" and paper["batch_size"] == "32"
    assert paper["learning_rate"] == "5e-05"
