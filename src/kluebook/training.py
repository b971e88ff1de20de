"""Fine-tuning with the official KLUE recipe on the Hugging Face Trainer (SPEC §2, §12).

What follows the official recipe: AdamW (eps 1e-8, no decay on biases and LayerNorm weights),
linear warm-up over ceil(warmup_ratio x total steps) then linear decay to 0, gradient clipping at
1.0, fp32, dev evaluated 4 times per epoch and the best-on-dev checkpoint reloaded at the end.
What differs, on purpose: batches are padded dynamically and grouped by length instead of
padded to the maximum length (same examples, same loss, far fewer pad tokens), and the step
count is an integer (the baseline's float total_steps only moves the schedule's end by < 1 step).
"""

import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import datasets
import pandas as pd
import torch
from torch.utils.data import SequentialSampler
from transformers import (
    AutoTokenizer,
    DataCollatorWithPadding,
    PreTrainedTokenizerBase,
    Trainer,
    TrainingArguments,
)

from kluebook.errors import KluebookError
from kluebook.modeling import TINY_MODEL, build_tiny_model, uses_token_type_ids
from kluebook.tasks import Task
from kluebook.zoo import model_entry

PROFILES = ("smoke", "paper")
# The tiny stand-in starts from random weights: it needs a higher learning rate and more
# epochs than a pretrained checkpoint. These replace the official values in the smoke profile,
# and a task's `smoke` entry in configs/tasks.yaml replaces these.
SMOKE_RECIPE = {"learning_rate": 1e-3, "epochs": 6, "warmup_ratio": 0.1, "max_length": 64}


@dataclass(frozen=True)
class Recipe:
    """Every training hyper-parameter of a run."""

    learning_rate: float
    batch_size: int
    eval_batch_size: int
    epochs: float
    warmup_ratio: float
    weight_decay: float
    max_length: int
    adam_epsilon: float
    max_grad_norm: float
    evals_per_epoch: int
    selection_metric: str
    gradient_accumulation: int = 1

    def as_dict(self) -> dict:
        return asdict(self)


def resolve_recipe(task: Task, model: str, profile: str, overrides: dict) -> Recipe:
    """The official recipe for `model` (smoke: adjusted for the tiny model), then `overrides`.

    Overrides that are None keep the recipe's value, so notebook parameters can default to None.
    """
    if profile not in PROFILES:
        raise KluebookError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    values = task.recipe_for(model, model_entry(model)["size"])
    if profile == "smoke":
        values.update(SMOKE_RECIPE)
        values.update(task.smoke_recipe)
    known = {f.name for f in fields(Recipe)}
    for key, value in overrides.items():
        if key not in known:
            raise KluebookError(f"unknown recipe parameter {key!r}")
        if value is not None:
            values[key] = value
    return Recipe(**{k: v for k, v in values.items() if k in known})


def resolve_checkpoint(model: str, corpus: list[str] | None = None) -> str:
    """A loadable model path or hub id; the tiny stand-in is built from `corpus` on first use."""
    if model == TINY_MODEL:
        if not corpus:
            raise KluebookError(f"{TINY_MODEL} needs the training text to build its vocabulary")
        return str(build_tiny_model(corpus))
    if Path(model).exists():
        return model
    check_hub_model(model)
    return model


def check_hub_model(model: str, timeout: float = 10.0) -> None:
    """Fail early, in one line, when a hub model id cannot be reached or does not exist."""
    import huggingface_hub
    from huggingface_hub.errors import HfHubHTTPError

    try:
        huggingface_hub.model_info(model, timeout=timeout)
    except HfHubHTTPError as error:
        raise KluebookError(
            f"model {model!r} not found on the Hugging Face hub ({error})"
        ) from error
    except Exception as error:  # connection, proxy and timeout errors of several libraries
        raise KluebookError(
            f"cannot reach the Hugging Face hub for model {model!r}: {type(error).__name__}"
        ) from error


def load_tokenizer(checkpoint: str) -> PreTrainedTokenizerBase:
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    if not uses_token_type_ids(checkpoint):
        # KLUE-RoBERTa has a single token type: never feed segment ids (SPEC §1).
        tokenizer.model_input_names = [
            n for n in tokenizer.model_input_names if n != "token_type_ids"
        ]
    return tokenizer


def tokenize(
    tokenizer: PreTrainedTokenizerBase,
    first: list[str],
    second: list[str] | None = None,
    labels: list | None = None,
    max_length: int = 128,
) -> datasets.Dataset:
    """Encode single texts or pairs without padding (the collator pads each batch)."""
    encoded = tokenizer(
        first,
        second,
        truncation=True,
        max_length=max_length,
        return_token_type_ids="token_type_ids" in tokenizer.model_input_names,
    )
    columns = dict(encoded)
    if labels is not None:
        columns["labels"] = labels
    return datasets.Dataset.from_dict(columns)


def steps_per_epoch(train_size: int, recipe: Recipe) -> int:
    return max(1, math.ceil(train_size / (recipe.batch_size * recipe.gradient_accumulation)))


def training_arguments(recipe: Recipe, output_dir: str | Path, seed: int, train_size: int):
    """TrainingArguments that carry out `recipe` (SPEC §2)."""
    per_epoch = steps_per_epoch(train_size, recipe)
    total = math.ceil(per_epoch * recipe.epochs)
    eval_every = max(1, round(per_epoch / recipe.evals_per_epoch))
    return TrainingArguments(
        output_dir=str(output_dir),
        learning_rate=recipe.learning_rate,
        per_device_train_batch_size=recipe.batch_size,
        per_device_eval_batch_size=recipe.eval_batch_size,
        gradient_accumulation_steps=recipe.gradient_accumulation,
        num_train_epochs=recipe.epochs,
        warmup_steps=math.ceil(recipe.warmup_ratio * total),
        lr_scheduler_type="linear",
        weight_decay=recipe.weight_decay,
        adam_epsilon=recipe.adam_epsilon,
        max_grad_norm=recipe.max_grad_norm,
        optim="adamw_torch",
        eval_strategy="steps",
        eval_steps=eval_every,
        save_strategy="steps",
        save_steps=eval_every,
        save_total_limit=1,
        save_only_model=True,
        load_best_model_at_end=True,
        metric_for_best_model=recipe.selection_metric,
        greater_is_better=True,
        logging_steps=eval_every,
        train_sampling_strategy="group_by_length",
        seed=seed,
        report_to="none",
        use_cpu=not torch.cuda.is_available(),
        dataloader_num_workers=0,
    )


class OrderedEvalTrainer(Trainer):
    """A Trainer whose evaluation keeps the dataset order.

    With `train_sampling_strategy="group_by_length"`, transformers 5 also shuffles evaluation
    batches by length, so `predict` returns rows in another order than the dataset's.
    """

    def _get_eval_sampler(self, eval_dataset):
        return SequentialSampler(eval_dataset)


@dataclass
class FineTuned:
    """A fine-tuned model with its training history."""

    trainer: Trainer
    best: dict
    last: dict
    history: pd.DataFrame


def fine_tune(
    model,
    tokenizer: PreTrainedTokenizerBase,
    train: datasets.Dataset,
    dev: datasets.Dataset,
    compute_metrics,
    recipe: Recipe,
    seed: int,
    output_dir: str | Path,
    data_collator=None,
    trainer_class: type[Trainer] = OrderedEvalTrainer,
) -> FineTuned:
    """Train with the recipe, evaluating on dev 4x per epoch; the best checkpoint is kept.

    Task models with their own evaluation (the DP parser, TRADE) pass their Trainer subclass.
    """
    trainer = trainer_class(
        model=model,
        args=training_arguments(recipe, output_dir, seed, len(train)),
        train_dataset=train,
        eval_dataset=dev,
        data_collator=data_collator or DataCollatorWithPadding(tokenizer),
        processing_class=tokenizer,
        compute_metrics=compute_metrics,
    )
    trainer.train()
    history = training_history(trainer.state.log_history)
    evaluations = history.dropna(subset=[f"eval_{recipe.selection_metric}"])
    best_row = evaluations.loc[evaluations[f"eval_{recipe.selection_metric}"].idxmax()]
    return FineTuned(
        trainer=trainer,
        best=_eval_metrics(best_row),
        last=_eval_metrics(evaluations.iloc[-1]),
        history=history,
    )


def training_history(log_history: list[dict]) -> pd.DataFrame:
    """One row per logged step: epoch, training loss and the dev metrics."""
    frame = pd.DataFrame(log_history)
    keep = [c for c in frame.columns if c in {"step", "epoch", "loss"} or c.startswith("eval_")]
    return frame[keep].groupby("step", as_index=False).first()


def _eval_metrics(row: pd.Series) -> dict:
    """The task metrics of one evaluation row, without the eval_ prefix and runtime figures."""
    skip = {"eval_loss", "eval_runtime", "eval_samples_per_second", "eval_steps_per_second"}
    metrics = {
        k.removeprefix("eval_"): float(v)
        for k, v in row.items()
        if k.startswith("eval_") and k not in skip
    }
    return {"step": int(row["step"]), "epoch": float(row["epoch"]), **metrics}
