"""RE's four entity markers start from the embeddings the baseline gave them.

The baseline adds `<subj> </subj> <obj> </obj>` to the tokenizer and resizes the embeddings
(`klue_baseline/task.py`); transformers 3.5.1 drew the new rows from N(0, initializer_range =
0.02). transformers 5 sets them from the mean and covariance of the old rows instead
(`resize_token_embeddings(..., mean_resizing=True)`). `fine_tune` draws them again from the
normal distribution when `added_token_init` is `normal` (the paper profile); the smoke profile
keeps the mean-resized rows.
"""

import pytest
import torch
from transformers import AutoModelForSequenceClassification

from kluebook.tasks import get_task
from kluebook.tasks.re.data import add_marker_tokens
from kluebook.tasks.re.synthetic import generate
from kluebook.training.fine_tuning import initialise_added_tokens, load_tokenizer
from kluebook.training.recipes import resolve_recipe
from kluebook.training.tiny_model import build_tiny_model


@pytest.fixture(scope="module")
def checkpoint():
    records = generate(seed=0)["train"][:200]
    return str(build_tiny_model([r["sentence"] for r in records]))


def resized_classifier(checkpoint):
    tokenizer = load_tokenizer(checkpoint)
    original = len(tokenizer)
    assert add_marker_tokens(tokenizer) == 4
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=30)
    model.resize_token_embeddings(len(tokenizer))  # as the notebook does
    return model, original


def test_the_paper_profile_draws_the_marker_rows_from_n_0_002(checkpoint):
    model, original = resized_classifier(checkpoint)
    weight = model.get_input_embeddings().weight
    old, mean_resized = weight[:original].clone(), weight[original:].clone()
    recipe = resolve_recipe(get_task("re"), "klue/roberta-base", "paper", {})
    assert recipe.added_token_init == "normal"
    torch.manual_seed(1)
    assert initialise_added_tokens(model, recipe) == 4
    assert torch.equal(weight[:original], old)  # the vocabulary's rows are untouched
    drawn = weight[original:]
    assert not torch.allclose(drawn, mean_resized)
    assert model.config.initializer_range == 0.02
    assert drawn.mean().abs().item() < 0.01
    assert drawn.std().item() == pytest.approx(0.02, rel=0.2)  # 4 x 64 draws


def test_the_smoke_profile_keeps_the_mean_resized_rows(checkpoint):
    model, _ = resized_classifier(checkpoint)
    before = model.get_input_embeddings().weight.clone()
    recipe = resolve_recipe(get_task("re"), "kluebook/tiny-roberta", "smoke", {})
    assert recipe.added_token_init == "mean"
    assert initialise_added_tokens(model, recipe) == 0
    assert torch.equal(before, model.get_input_embeddings().weight)


def test_a_model_without_added_tokens_is_left_alone(checkpoint):
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=7)
    before = model.get_input_embeddings().weight.clone()
    recipe = resolve_recipe(get_task("ynat"), "klue/roberta-base", "paper", {})
    assert initialise_added_tokens(model, recipe) == 0
    assert torch.equal(before, model.get_input_embeddings().weight)
