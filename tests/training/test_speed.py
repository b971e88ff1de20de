"""The speed switches: off, the official recipe; on, each changes what it names."""

import dataclasses

import pytest
from transformers import RobertaConfig, RobertaForSequenceClassification

from kluebook.common.errors import KluebookError
from kluebook.tasks import get_task
from kluebook.training import speed
from kluebook.training.fine_tuning import training_arguments
from kluebook.training.recipes import resolve_recipe


@pytest.fixture
def model():
    config = RobertaConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=40,
        type_vocab_size=1,
        pad_token_id=1,
    )
    return RobertaForSequenceClassification(config)


def test_the_official_recipe_has_every_switch_off_and_eager_attention(model, tmp_path):
    recipe = resolve_recipe(get_task("ynat"), "klue/roberta-base", "paper", {})
    assert speed.deviations(recipe) == []
    args = training_arguments(recipe, tmp_path, 1, 100)
    applied = speed.apply(args, recipe, model)
    assert applied is args and not applied.bf16 and applied.optim == "adamw_torch"
    assert model.config._attn_implementation == "eager"


def test_each_switch_is_a_named_deviation(model, tmp_path):
    switches = {"bf16": True, "fused_adamw": True, "optimizer": "adamw_torch"}
    recipe = resolve_recipe(get_task("ynat"), "klue/roberta-base", "paper", switches)
    recipe = dataclasses.replace(recipe, sdpa=True)
    assert speed.deviations(recipe) == [
        speed.SWITCHES["bf16"],
        speed.SWITCHES["fused_adamw"],
        speed.SWITCHES["sdpa"],
    ]
    applied = speed.apply(training_arguments(recipe, tmp_path, 1, 100), recipe, model)
    assert applied.bf16 and applied.optim == "adamw_torch_fused"
    assert model.config._attn_implementation == "sdpa"


def test_the_fused_kernel_is_refused_with_an_optimizer_that_has_none():
    """The official optimizer is transformers 3.5.1's AdamW, which the switch cannot fuse: a run
    asking for both would be recorded with a deviation it never made."""
    with pytest.raises(KluebookError, match="fused_adamw=true needs optimizer=adamw_torch"):
        resolve_recipe(get_task("ynat"), "klue/roberta-base", "paper", {"fused_adamw": True})
    smoke = resolve_recipe(get_task("ynat"), "kluebook/tiny-roberta", "smoke", {})
    assert smoke.fused_adamw and smoke.optimizer == "adamw_torch"
    with pytest.raises(KluebookError, match="or fused_adamw=false"):
        resolve_recipe(
            get_task("ynat"), "kluebook/tiny-roberta", "smoke", {"optimizer": "adamw_transformers3"}
        )
