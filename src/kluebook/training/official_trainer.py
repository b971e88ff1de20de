"""What the official trainer did around the model, rebuilt for the Hugging Face Trainer.

KLUE-baseline trained with PyTorch Lightning 1.1 (`run_klue.py`,
`klue_baseline/models/lightning_base.py`). Four things it decided differ from what the HF
Trainer does by default, and each is a recipe switch (book/deviations.md):

- when the dev set is scored: Lightning counts batches inside each epoch and validates after
  every `int(batches per epoch x val_check_interval)` of them (`val_check_interval=0.25`),
  restarting the count at each epoch, so a batch left over at an epoch's end is never scored
  (`evaluation_steps`, `ScheduledEvaluation`);
- when training stops: `EarlyStopping(patience, mode="max")` on the selection metric, counting
  evaluations without a strict gain over the best so far (`LightningEarlyStopping`);
- the learning-rate schedule: linear warm-up and decay over a step count computed as a float,
  `train size / (batch x accumulation x GPUs) x epochs`, with `ceil(ratio x that)` warm-up steps
  (`official_total_steps`, `linear_schedule`);
- the optimizer: the `AdamW` of transformers 3.5.1, whose epsilon sits outside the bias
  correction, with weight decay for every parameter whose name holds neither `bias` nor
  `LayerNorm.weight` (`TransformersV3AdamW`, `official_parameter_groups`).
"""

import math
from collections.abc import Iterable, Sequence
from functools import partial

import torch
from torch.optim.lr_scheduler import LambdaLR
from transformers import TrainerCallback

from kluebook.common.errors import KluebookError

# KLUE-baseline's parameters without weight decay: any whose name contains one of these.
NO_DECAY = ("bias", "LayerNorm.weight")


def optimizer_steps_per_epoch(batches_per_epoch: int, accumulation: int = 1) -> int:
    """Optimizer steps in one epoch: Lightning and the HF Trainer both step on the epoch's last
    batch even when it does not complete an accumulation."""
    return max(1, math.ceil(batches_per_epoch / accumulation))


def total_optimizer_steps(batches_per_epoch: int, epochs: float, accumulation: int = 1) -> int:
    """The optimizer steps of a whole run, as the HF Trainer counts them."""
    return math.ceil(optimizer_steps_per_epoch(batches_per_epoch, accumulation) * epochs)


def lightning_check_batch(batches_per_epoch: int, evals_per_epoch: int) -> int:
    """Lightning 1.1's `val_check_batch` for `val_check_interval = 1 / evals_per_epoch`:
    validate after every this many batches of an epoch (trainer/data_loading.py)."""
    return max(1, int(batches_per_epoch * (1.0 / evals_per_epoch)))


def lightning_evaluation_steps(
    batches_per_epoch: int, epochs: float, evals_per_epoch: int, accumulation: int = 1
) -> list[int]:
    """The optimizer steps after which Lightning 1.1 scored the dev set, in order.

    Lightning validates after batch `b` of every epoch when `b` is a multiple of
    `lightning_check_batch`; the model it scores has taken the optimizer steps of the earlier
    epochs plus `b // accumulation` of this one (all of this epoch's steps if `b` is its last
    batch). Two validations with no optimizer step between them score the same weights; they
    are one step here (possible only when the check interval is shorter than the accumulation).
    """
    interval = lightning_check_batch(batches_per_epoch, evals_per_epoch)
    per_epoch = optimizer_steps_per_epoch(batches_per_epoch, accumulation)
    last = total_optimizer_steps(batches_per_epoch, epochs, accumulation)
    steps: list[int] = []
    for epoch in range(math.ceil(epochs)):
        for batch in range(interval, batches_per_epoch + 1, interval):
            done = per_epoch if batch == batches_per_epoch else batch // accumulation
            step = epoch * per_epoch + done
            if 0 < step <= last and (not steps or step > steps[-1]):
                steps.append(step)
    return steps


def trainer_evaluation_steps(
    batches_per_epoch: int, epochs: float, evals_per_epoch: int, accumulation: int = 1
) -> list[int]:
    """The optimizer steps the HF Trainer scores with `eval_steps = round(steps per epoch /
    evals_per_epoch)`: every multiple of that, and the last step (the `trainer` schedule)."""
    per_epoch = optimizer_steps_per_epoch(batches_per_epoch, accumulation)
    last = total_optimizer_steps(batches_per_epoch, epochs, accumulation)
    every = max(1, round(per_epoch / evals_per_epoch))
    steps = list(range(every, last + 1, every))
    return steps if steps and steps[-1] == last else [*steps, last]


class ScheduledEvaluation(TrainerCallback):
    """Score dev, save a checkpoint and log exactly after the given optimizer steps.

    It overrides the Trainer's own step-based decisions, including its extra evaluation at the
    last step. `batches_per_epoch` is checked against the training dataloader.
    """

    def __init__(self, steps: Iterable[int], batches_per_epoch: int | None = None):
        self.steps = sorted(set(steps))
        self.batches_per_epoch = batches_per_epoch

    def on_train_begin(self, args, state, control, train_dataloader=None, **kwargs):
        expected = self.batches_per_epoch
        if expected is not None and train_dataloader is not None:
            actual = len(train_dataloader)
            if actual != expected:
                raise KluebookError(
                    f"the evaluation schedule assumed {expected} batches per epoch, "
                    f"the training dataloader has {actual}"
                )

    def on_step_end(self, args, state, control, **kwargs):
        due = state.global_step in self.steps
        control.should_evaluate = due
        control.should_save = due
        control.should_log = due
        return control


class LightningEarlyStopping(TrainerCallback):
    """Lightning 1.1's `EarlyStopping(monitor, patience, mode="max")` with `min_delta=0`.

    Each dev evaluation either beats the best value so far strictly (a NaN never does) and
    resets the count, or adds one to it; training stops at the evaluation that brings the count
    to `patience`. The best value starts at minus infinity, so the first evaluation always
    counts as a gain. A missing metric is an error, as with Lightning's `strict=True`.
    """

    def __init__(self, metric: str, patience: int):
        if patience < 1:
            raise KluebookError(f"early stopping patience must be at least 1, got {patience}")
        self.metric = metric if metric.startswith("eval_") else f"eval_{metric}"
        self.patience = patience
        self.best = -math.inf
        self.wait = 0
        self.stopped_at: int | None = None

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        if not metrics or self.metric not in metrics:
            raise KluebookError(f"early stopping monitors {self.metric}, which was not computed")
        value = float(metrics[self.metric])
        if value > self.best:
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_at = state.global_step
                control.should_training_stop = True
        return control


def official_total_steps(
    train_size: int, batch_size: int, epochs: float, accumulation: int = 1, gpus: int = 1
) -> float:
    """The baseline's `total_steps()`: train size / (batch x accumulation x GPUs) x epochs, a
    float. With more than one GPU under DataParallel the batch was not split per GPU, so the
    schedule ran on a fraction of the real steps (`lr_schedule_gpus`)."""
    return train_size / (batch_size * accumulation * gpus) * epochs


def official_warmup_steps(total_steps: float, warmup_ratio: float) -> int:
    """The baseline's `num_warmup_steps()`: ceil(total steps x ratio)."""
    return math.ceil(total_steps * warmup_ratio)


def linear_factor(step: int, warmup_steps: int, total_steps: float) -> float:
    """The learning-rate multiplier after `step` optimizer steps: linear warm-up from 0, then
    linear decay to 0 at `total_steps` (a float is allowed), 0 from there on."""
    if step < warmup_steps:
        return step / max(1, warmup_steps)
    return max(0.0, (total_steps - step) / max(1.0, total_steps - warmup_steps))


def linear_schedule(
    optimizer: torch.optim.Optimizer, warmup_steps: int, total_steps: float
) -> LambdaLR:
    """The official linear schedule on `optimizer` (stepped once per optimizer step)."""
    return LambdaLR(
        optimizer, partial(linear_factor, warmup_steps=warmup_steps, total_steps=total_steps)
    )


def official_parameter_groups(
    named_parameters: Iterable[tuple[str, torch.nn.Parameter]], weight_decay: float
) -> list[dict]:
    """The baseline's two parameter groups: decay for every parameter whose name contains
    neither `bias` nor `LayerNorm.weight`, none for the others."""
    decay, no_decay = [], []
    for name, parameter in named_parameters:
        (no_decay if any(part in name for part in NO_DECAY) else decay).append(parameter)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


class TransformersV3AdamW(torch.optim.Optimizer):
    """AdamW as transformers 3.5.1 computed it (`transformers.AdamW`, the baseline's optimizer).

    Two differences from `torch.optim.AdamW`: epsilon is added to the square root of the raw
    second moment and the bias corrections scale the step size, so the effective epsilon is
    `eps / sqrt(1 - beta2^t)` (larger in the first steps); and the decoupled weight decay is
    applied after the Adam update, to the updated weights.
    """

    def __init__(
        self,
        params,
        lr: float,
        betas: Sequence[float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ):
        if lr < 0 or eps < 0 or not all(0 <= beta < 1 for beta in betas):
            raise ValueError(f"invalid AdamW settings: lr={lr}, betas={betas}, eps={eps}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay}
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for parameter in group["params"]:
                if parameter.grad is None:
                    continue
                grad = parameter.grad
                if grad.is_sparse:
                    raise RuntimeError("TransformersV3AdamW does not take sparse gradients")
                state = self.state[parameter]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(parameter)
                    state["exp_avg_sq"] = torch.zeros_like(parameter)
                state["step"] += 1
                mean, square = state["exp_avg"], state["exp_avg_sq"]
                mean.mul_(beta1).add_(grad, alpha=1.0 - beta1)
                square.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
                denominator = square.sqrt().add_(group["eps"])
                step = state["step"]
                step_size = group["lr"] * math.sqrt(1.0 - beta2**step) / (1.0 - beta1**step)
                parameter.addcdiv_(mean, denominator, value=-step_size)
                if group["weight_decay"] > 0.0:
                    parameter.add_(parameter, alpha=-group["lr"] * group["weight_decay"])
        return loss
