"""Fine-tuning with the official KLUE recipe on the Hugging Face Trainer (book/methods.md).

What the paper profile takes from the official code (KLUE-baseline on PyTorch Lightning 1.1,
`kluebook.training.official_trainer`): the AdamW of transformers 3.5.1 (eps 1e-8, no decay on
biases and LayerNorm weights), linear warm-up over ceil(warmup_ratio x total steps) then linear
decay to 0, with the baseline's float step count, gradient clipping at 1.0, fp32, uniform random
batches, dev scored at Lightning's points (4 times per epoch, counted inside each epoch),
early stopping where the task's command left it on, and the best-on-dev checkpoint reloaded at
the end. Each place where kluebook can do otherwise is a switch of the recipe
(book/deviations.md); `fine_tune` applies them all, including those of the task models
(`apply_recipe`) and the initialisation of added token embeddings.

What differs, on purpose and in both profiles: batches are padded to their longest example
unless the recipe's `pad_to_max_length` is on (the same examples and loss wherever the model
masks padding; the tasks whose numbers depend on the padding turn it on).
"""

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

import datasets
import pandas as pd
import torch
from torch.utils.data import SequentialSampler
from transformers import (
    AutoConfig,
    AutoTokenizer,
    DataCollatorWithPadding,
    PreTrainedTokenizerBase,
    Trainer,
    TrainingArguments,
)

from kluebook.common.errors import KluebookError
from kluebook.training import devices, speed
from kluebook.training.checkpoints import hub_snapshot
from kluebook.training.official_trainer import (
    LightningEarlyStopping,
    ScheduledEvaluation,
    TransformersV3AdamW,
    lightning_evaluation_steps,
    linear_schedule,
    official_parameter_groups,
    official_total_steps,
    official_warmup_steps,
)
from kluebook.training.recipes import Recipe
from kluebook.training.tiny_model import TINY_MODEL, build_tiny_model, uses_token_type_ids


def resolve_checkpoint(
    model: str, corpus: list[str] | None = None, tiny_embedding_std: float | None = None
) -> str:
    """A loadable model folder: a local one as given, a hub model's files at its pinned commit
    (`kluebook.training.checkpoints.hub_snapshot`), or the tiny stand-in, built from `corpus` on
    first use (with its embedding tables drawn from N(0, tiny_embedding_std) where that is
    given)."""
    if model == TINY_MODEL:
        if not corpus:
            raise KluebookError(f"{TINY_MODEL} needs the training text to build its vocabulary")
        return str(build_tiny_model(corpus, embedding_std=tiny_embedding_std))
    if Path(model).exists():
        return model
    return hub_snapshot(model)


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


def batches_per_epoch(train_size: int, recipe: Recipe) -> int:
    return max(1, math.ceil(train_size / recipe.batch_size))


def loader_batches_per_epoch(train_size: int, recipe: Recipe) -> int:
    """The batches the Trainer draws per epoch: the recipe's, each split into `micro_batches`."""
    return max(1, math.ceil(train_size / (recipe.batch_size // recipe.micro_batches)))


def steps_per_epoch(train_size: int, recipe: Recipe) -> int:
    return max(1, math.ceil(train_size / (recipe.batch_size * recipe.gradient_accumulation)))


def evaluation_steps(train_size: int, recipe: Recipe) -> list[int] | None:
    """The optimizer steps after which dev is scored under the `lightning` schedule (None
    under `trainer`, where the HF Trainer decides: every `eval_steps` and at the last step)."""
    if recipe.eval_schedule != "lightning":
        return None
    return lightning_evaluation_steps(
        batches_per_epoch(train_size, recipe),
        recipe.epochs,
        recipe.evals_per_epoch,
        recipe.gradient_accumulation,
    )


def training_arguments(recipe: Recipe, output_dir: str | Path, seed: int, train_size: int):
    """TrainingArguments that carry out `recipe` (book/methods.md).

    Under the `lightning` schedule the evaluation, save and log points are set by the
    `ScheduledEvaluation` callback of `training_callbacks`; the step counts here only satisfy
    the Trainer's checks. The warm-up steps are the Trainer's own schedule's (`lr_schedule`
    `trainer`); the official schedule is built by `official_optimizers`.
    """
    per_epoch = steps_per_epoch(train_size, recipe)
    total = math.ceil(per_epoch * recipe.epochs)
    eval_every = max(1, round(per_epoch / recipe.evals_per_epoch))
    return TrainingArguments(
        output_dir=str(output_dir),
        learning_rate=recipe.learning_rate,
        # Micro-batches: a smaller batch and more accumulation, the same optimizer steps.
        per_device_train_batch_size=recipe.batch_size // recipe.micro_batches,
        per_device_eval_batch_size=recipe.eval_batch_size,
        gradient_accumulation_steps=recipe.gradient_accumulation * recipe.micro_batches,
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
        train_sampling_strategy="group_by_length" if recipe.group_by_length else "random",
        seed=seed,
        report_to="none",
        use_cpu=not torch.cuda.is_available(),
        dataloader_num_workers=0,
    )


def training_callbacks(recipe: Recipe, train_size: int) -> list:
    """The callbacks that carry out the recipe's evaluation schedule and early stopping."""
    callbacks = []
    steps = evaluation_steps(train_size, recipe)
    if steps is not None:
        callbacks.append(ScheduledEvaluation(steps, loader_batches_per_epoch(train_size, recipe)))
    if recipe.early_stopping_patience is not None:
        callbacks.append(
            LightningEarlyStopping(recipe.selection_metric, recipe.early_stopping_patience)
        )
    return callbacks


def official_optimizers(model: torch.nn.Module, recipe: Recipe, train_size: int):
    """(optimizer, scheduler) for the Trainer; None where the recipe leaves it to the Trainer.

    `optimizer` `adamw_transformers3`: transformers 3.5.1's AdamW on the baseline's parameter
    groups. `lr_schedule` `official`: linear warm-up and decay over the baseline's float step
    count, divided by `lr_schedule_gpus` as the baseline divided it by the GPU count.
    """
    optimizer = None
    if recipe.optimizer == "adamw_transformers3":
        optimizer = TransformersV3AdamW(
            official_parameter_groups(model.named_parameters(), recipe.weight_decay),
            lr=recipe.learning_rate,
            eps=recipe.adam_epsilon,
        )
    scheduler = None
    if recipe.lr_schedule == "official":
        if optimizer is None:
            raise KluebookError("the official learning-rate schedule needs the official optimizer")
        total = official_total_steps(
            train_size,
            recipe.batch_size,
            recipe.epochs,
            recipe.gradient_accumulation,
            recipe.lr_schedule_gpus,
        )
        scheduler = linear_schedule(
            optimizer, official_warmup_steps(total, recipe.warmup_ratio), total
        )
    elif recipe.lr_schedule_gpus != 1:
        raise KluebookError("lr_schedule_gpus applies to the official learning-rate schedule only")
    return optimizer, scheduler


def initialise_added_tokens(model: torch.nn.Module, recipe: Recipe) -> int:
    """Draw the embedding rows of tokens added to the checkpoint's vocabulary again from
    N(0, initializer_range), as transformers 3.5.1 initialised them when the baseline resized
    the embeddings (`added_token_init` `normal`); transformers 5 sets them from the mean and
    covariance of the others. Returns how many rows were drawn."""
    if recipe.added_token_init != "normal":
        return 0
    source = getattr(model, "name_or_path", None)
    get_embeddings = getattr(model, "get_input_embeddings", None)
    if not source or get_embeddings is None:
        return 0
    embeddings = get_embeddings()
    original = AutoConfig.from_pretrained(source).vocab_size
    added = embeddings.num_embeddings - original
    if added <= 0:
        return 0
    with torch.no_grad():
        embeddings.weight[original:].normal_(mean=0.0, std=model.config.initializer_range)
    return added


def padded_collator(collator, recipe: Recipe):
    """The collator, padding every batch to `max_length` when the recipe says so."""
    if not recipe.pad_to_max_length:
        return collator
    names = (
        {f.name for f in dataclasses.fields(collator)}
        if dataclasses.is_dataclass(collator)
        else set()
    )
    if not {"padding", "max_length"} <= names:
        raise KluebookError(
            f"pad_to_max_length: {type(collator).__name__} cannot pad to a fixed length"
        )
    return dataclasses.replace(collator, padding="max_length", max_length=recipe.max_length)


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
    """Train with the recipe, evaluating on dev at the recipe's points; the best checkpoint is
    reloaded at the end.

    Task models with their own evaluation pass their Trainer subclass, whose `default_collator`
    batches their features. The recipe's switches take effect here: the schedules, optimizer
    and early stopping, the padding, the initialisation of added token embeddings, and those
    of the model itself through its `apply_recipe(recipe)` if it has one.
    """
    initialise_added_tokens(model, recipe)
    apply_recipe = getattr(model, "apply_recipe", None)
    if apply_recipe is not None:
        apply_recipe(recipe)
    collator = data_collator or trainer_class.default_collator(tokenizer)
    args = speed.apply(training_arguments(recipe, output_dir, seed, len(train)), recipe, model)
    devices.check_trainer_devices(args)
    trainer = trainer_class(
        model=model,
        args=args,
        train_dataset=train,
        eval_dataset=dev,
        data_collator=padded_collator(collator, recipe),
        processing_class=tokenizer,
        compute_metrics=compute_metrics,
        callbacks=training_callbacks(recipe, len(train)),
    )
    # Built on the model as the Trainer placed it on its device.
    trainer.optimizer, trainer.lr_scheduler = official_optimizers(trainer.model, recipe, len(train))
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
