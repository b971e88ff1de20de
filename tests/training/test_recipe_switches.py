"""The switches of the recipe: their paper and smoke values, and what the Trainer is told.

Paper profile: every switch at the official code's behaviour, except where a task's task.yaml
sets the official value of that task (patience 5 for STS, NLI and NER; RE-large's halved
schedule; padding to max_length where the padding changes the numbers: MRC and NER). Smoke
profile: the behaviour kluebook had before the switches existed.
"""

import dataclasses

import pytest
import torch
from transformers import AutoTokenizer, DataCollatorForTokenClassification, DataCollatorWithPadding

from kluebook.common.errors import KluebookError
from kluebook.tasks import all_tasks, get_task
from kluebook.training.fine_tuning import padded_collator, training_arguments
from kluebook.training.recipes import (
    SMOKE_RECIPE,
    SWITCH_DEFAULTS,
    Recipe,
    resolve_recipe,
)

TASKS = list(all_tasks())
PAPER_CHANGES = {
    ("sts", "base"): {"early_stopping_patience": 5},
    ("sts", "large"): {"early_stopping_patience": 5},
    ("nli", "base"): {"early_stopping_patience": 5},
    ("nli", "large"): {"early_stopping_patience": 5},
    ("ner", "base"): {"early_stopping_patience": 5, "pad_to_max_length": True},
    ("ner", "large"): {"early_stopping_patience": 5, "pad_to_max_length": True},
    ("re", "large"): {"lr_schedule_gpus": 2},
    ("mrc", "base"): {"pad_to_max_length": True},
    ("mrc", "large"): {"pad_to_max_length": True},
}
MODELS = {"base": "klue/roberta-base", "large": "klue/roberta-large"}


@pytest.mark.parametrize("task", TASKS)
def test_the_paper_profile_follows_the_official_code(task):
    for size, model in MODELS.items():
        recipe = resolve_recipe(get_task(task), model, "paper", {})
        own = {name: s.choices[0] for name, s in get_task(task).switches.items()}
        expected = {**SWITCH_DEFAULTS, **own, **PAPER_CHANGES.get((task, size), {})}
        assert recipe.switches() == expected


@pytest.mark.parametrize("task", TASKS)
def test_the_smoke_profile_keeps_its_earlier_behaviour(task):
    recipe = resolve_recipe(get_task(task), "kluebook/tiny-roberta", "smoke", {})
    own = {name: s.smoke for name, s in get_task(task).switches.items()}
    assert recipe.switches() == {name: SMOKE_RECIPE[name] for name in SWITCH_DEFAULTS} | own
    assert recipe.switches() == {
        "eval_schedule": "trainer",
        "early_stopping_patience": None,
        "lr_schedule": "trainer",
        "lr_schedule_gpus": 1,
        "optimizer": "adamw_torch",
        "group_by_length": True,
        "pad_to_max_length": False,
        "added_token_init": "mean",
        **{
            "dp": {"dp_padded_head_score": "masked", "dp_scorer_init": "kluebook-0.1"},
            "ner": {"ner_boundary_tags": "outside"},
            "mrc": {"mrc_answer_labels": "pieces"},
            "wos": {"wos_slot_name_padding": "masked"},
        }.get(task, {}),
    }


def test_every_switch_is_recorded_with_the_recipe():
    recipe = resolve_recipe(get_task("ynat"), "klue/roberta-base", "paper", {})
    assert set(SWITCH_DEFAULTS) <= set(recipe.as_dict())


def test_a_switch_value_outside_its_choices_is_refused():
    recipe = resolve_recipe(get_task("ynat"), "klue/roberta-base", "paper", {})
    with pytest.raises(KluebookError, match="eval_schedule must be one of lightning, trainer"):
        dataclasses.replace(recipe, eval_schedule="sometimes")
    with pytest.raises(KluebookError, match="early_stopping_patience"):
        dataclasses.replace(recipe, early_stopping_patience=0)
    with pytest.raises(KluebookError, match="lr_schedule_gpus"):
        dataclasses.replace(recipe, lr_schedule_gpus=0)
    with pytest.raises(KluebookError, match="unknown recipe parameter"):
        resolve_recipe(get_task("ynat"), "klue/roberta-base", "paper", {"eval_schedul": "x"})


def test_the_trainer_samples_uniformly_in_fp32_with_clipping(tmp_path):
    paper = resolve_recipe(get_task("nli"), "klue/roberta-base", "paper", {})
    smoke = resolve_recipe(get_task("nli"), "kluebook/tiny-roberta", "smoke", {})
    paper_args = training_arguments(paper, tmp_path, 42, 1000)
    assert paper_args.train_sampling_strategy == "random"  # the baseline's shuffled DataLoader
    assert training_arguments(smoke, tmp_path, 42, 1000).train_sampling_strategy == (
        "group_by_length"
    )
    assert not paper_args.fp16 and not paper_args.bf16
    assert paper_args.max_grad_norm == 1.0
    assert paper_args.load_best_model_at_end and paper_args.greater_is_better
    assert paper_args.metric_for_best_model == "accuracy"


def test_padding_to_max_length_replaces_the_collators_padding(tmp_path):
    from kluebook.tasks.ynat.synthetic import generate
    from kluebook.training.tiny_model import build_tiny_model

    titles = [r["title"] for r in generate(seed=0)["train"][:100]]
    tokenizer = AutoTokenizer.from_pretrained(build_tiny_model(titles))
    paper = resolve_recipe(get_task("mrc"), "klue/roberta-base", "paper", {})
    smoke = resolve_recipe(get_task("mrc"), "kluebook/tiny-roberta", "smoke", {})
    features = [{"input_ids": [0, 5, 2]}, {"input_ids": [0, 5, 6, 7, 2]}]
    plain = DataCollatorWithPadding(tokenizer)
    assert padded_collator(plain, smoke) is plain
    batch = padded_collator(plain, paper)(features)
    assert batch["input_ids"].shape == (2, 510)
    tagging = padded_collator(DataCollatorForTokenClassification(tokenizer), paper)
    tagged = tagging([{**f, "labels": [0] * len(f["input_ids"])} for f in features])
    assert tagged["labels"].shape == (2, 510)
    assert (tagged["labels"][0, 3:] == -100).all()

    class Custom:
        def __call__(self, features):
            return torch.zeros(1)

    with pytest.raises(KluebookError, match="Custom cannot pad to a fixed length"):
        padded_collator(Custom(), paper)


def test_a_recipe_built_by_hand_gets_the_official_switches():
    recipe = Recipe(
        learning_rate=1e-3,
        batch_size=8,
        eval_batch_size=8,
        epochs=1,
        warmup_ratio=0.0,
        weight_decay=0.0,
        max_length=32,
        adam_epsilon=1e-8,
        max_grad_norm=1.0,
        evals_per_epoch=1,
        selection_metric="las",
    )
    assert recipe.switches() == SWITCH_DEFAULTS


def test_a_run_sets_any_switch_without_the_notebook_declaring_it(tmp_path):
    """`--set eval_schedule=trainer` or a task's own switch reaches the recipe through the
    injected parameters; a value outside a switch's choices is refused before any run."""
    from kluebook.notebook.steps import start_run
    from kluebook.running.run_plan import check_parameters

    dp = get_task("dp")
    check_parameters(dp, {"eval_schedule": "trainer", "dp_scorer_init": "official"})
    with pytest.raises(KluebookError, match="dp_scorer_init must be one of official"):
        check_parameters(dp, {"dp_scorer_init": "xavier"})
    with pytest.raises(KluebookError, match="unknown parameter 'ner_boundary_tags' for dp"):
        check_parameters(dp, {"ner_boundary_tags": "model"})
    namespace = {
        "model": "kluebook/tiny-roberta",
        "profile": "smoke",
        "data_source": "generated",
        "data_dir": "",
        "seed": 1,
        "learning_rate": None,
        "batch_size": None,
        "epochs": None,
        "warmup_ratio": None,
        "max_length": None,
        "train_limit": 0,
        "dev_limit": 0,
        "output_dir": str(tmp_path),
        "eval_schedule": "lightning",
        "dp_scorer_init": "official",
    }
    run = start_run("dp", namespace)
    assert run.recipe.eval_schedule == "lightning"
    assert run.recipe.switches()["dp_scorer_init"] == "official"
    assert run.recipe.switches()["dp_padded_head_score"] == "masked"  # the smoke value, unset
    assert run.parameters["dp_scorer_init"] == "official"  # recorded with the parameters
