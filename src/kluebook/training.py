"""Fine-tuning with the official KLUE recipe on the Hugging Face Trainer (book/methods.md).

What follows the official recipe: AdamW (eps 1e-8, no decay on biases and LayerNorm weights),
linear warm-up over ceil(warmup_ratio x total steps) then linear decay to 0, gradient clipping at
1.0, fp32, dev evaluated 4 times per epoch and the best-on-dev checkpoint reloaded at the end.
What differs, on purpose: batches are padded dynamically and grouped by length instead of
padded to the maximum length (same examples, same loss, far fewer pad tokens), and the step
count is an integer (the baseline's float total_steps only moves the schedule's end by < 1 step).
"""

import math
from dataclasses import dataclass
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

from kluebook import speed
from kluebook.checkpoints import check_hub_model
from kluebook.errors import KluebookError
from kluebook.recipes import Recipe
from kluebook.tiny_model import TINY_MODEL, build_tiny_model, uses_token_type_ids


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


def load_tokenizer(checkpoint: str) -> PreTrainedTokenizerBase:
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    if not uses_token_type_ids(checkpoint):
        # KLUE-RoBERTa has a single token type: never feed segment ids (book/methods.md).
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
    """TrainingArguments that carry out `recipe` (book/methods.md)."""
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

    @staticmethod
    def default_collator(tokenizer: PreTrainedTokenizerBase):
        """The batch collator `fine_tune` uses with this trainer unless given another."""
        return DataCollatorWithPadding(tokenizer)


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

    Task models with their own evaluation pass their Trainer subclass, whose `default_collator`
    batches their features.
    """
    trainer = trainer_class(
        model=model,
        args=speed.apply(training_arguments(recipe, output_dir, seed, len(train)), recipe, model),
        train_dataset=train,
        eval_dataset=dev,
        data_collator=data_collator or trainer_class.default_collator(tokenizer),
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
