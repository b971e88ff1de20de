"""Shared fixtures: real KLUE files from KLUEBOOK_DATA_DIR (skipped when absent)."""

from pathlib import Path

import pytest

from kluebook.paths import KLUE_DATA


@pytest.fixture(scope="session")
def klue_file():
    """Find a real KLUE v1.1 file in KLUEBOOK_DATA_DIR: the first of the relative paths given
    that exists (e.g. a full file, then a reduced copy); the test skips with a reason if none does.
    """

    def find(*relative_paths: str) -> Path:
        for relative in relative_paths:
            if (KLUE_DATA / relative).is_file():
                return KLUE_DATA / relative
        pytest.skip(
            f"real KLUE file {relative_paths[0]} not found in KLUEBOOK_DATA_DIR ({KLUE_DATA}); "
            "fill it with `kluebook data fetch` or point the variable at a copy"
        )

    return find


def tiny_encoder(tokenizer, hidden_size=32, layers=2, max_positions=130, dropout=0.1):
    """A seeded, randomly initialised RoBERTa encoder small enough for unit tests."""
    import torch
    from transformers import RobertaConfig, RobertaModel

    torch.manual_seed(0)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=2 * hidden_size,
        max_position_embeddings=max_positions,
        type_vocab_size=1,
        pad_token_id=tokenizer.pad_token_id,
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
    )
    return RobertaModel(config)


def dummy_fine_tune(
    tmp_path,
    train_size: int,
    recipe_changes: dict,
    scores=None,
    metric: str = "score",
):
    """`kluebook.training.fine_tune` on a one-weight model over `train_size` identical rows.

    The dev metric `metric` takes the values of `scores` in turn (a constant if None). Returns
    the fine-tune result and the optimizer steps at which dev was scored.
    """
    import datasets
    import torch
    from transformers import default_data_collator

    from kluebook.recipes import Recipe
    from kluebook.training import fine_tune

    class OneWeight(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.zeros(1))

        def forward(self, x, labels=None):
            logits = x * self.weight
            return {"loss": ((logits - labels) ** 2).mean(), "logits": logits}

    values = iter(scores) if scores is not None else None
    model = OneWeight()

    def compute_metrics(prediction):
        return {metric: float(next(values)) if values is not None else 1.0}

    fields = {
        "learning_rate": 1e-3,
        "batch_size": 1,
        "eval_batch_size": 4,
        "epochs": 3,
        "warmup_ratio": 0.0,
        "weight_decay": 0.0,
        "max_length": 8,
        "adam_epsilon": 1e-8,
        "max_grad_norm": 1.0,
        "evals_per_epoch": 4,
        "selection_metric": metric,
        **recipe_changes,
    }
    rows = {"x": [[1.0]] * train_size, "labels": [[1.0]] * train_size}
    dev = datasets.Dataset.from_dict({"x": [[1.0]] * 2, "labels": [[1.0]] * 2})
    torch.manual_seed(0)
    result = fine_tune(
        model,
        None,
        datasets.Dataset.from_dict(rows),
        dev,
        compute_metrics,
        Recipe(**fields),
        0,
        tmp_path,
        data_collator=default_data_collator,
    )
    logs = result.trainer.state.log_history
    scored_at = [entry["step"] for entry in logs if f"eval_{metric}" in entry]  # NaNs included
    return result, scored_at


def fit_with_lightning(module, batches: int, **settings) -> None:
    """Fit `module` with a real, quiet `lightning.Trainer` on CPU, the trainer of the official
    code: `batches` training batches of one example, one validation batch, no sanity check;
    `settings` are the Trainer's arguments under test (epochs, check interval, callbacks)."""
    import logging
    import warnings

    import lightning
    import torch

    trainer = lightning.Trainer(
        num_sanity_val_steps=0,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        accelerator="cpu",
        devices=1,
        **settings,
    )
    train = torch.utils.data.TensorDataset(torch.ones(batches, 1))
    dev = torch.utils.data.TensorDataset(torch.ones(1, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
        trainer.fit(
            module,
            torch.utils.data.DataLoader(train, batch_size=1),
            torch.utils.data.DataLoader(dev),
        )


def valid_record(fields: dict):
    """A `RunRecord` with `fields` (task, profile, model, seed, metrics, status…), completed
    with what `kluebook run` would record; made from today's code and notebook of its task unless
    `fields` holds its `inputs`. A failed run keeps no outcome."""
    from kluebook import records
    from kluebook.tasks import get_task

    task = get_task(fields.get("task", "ynat"))
    parameters = {
        "model": fields.get("model", "kluebook/tiny-roberta"),
        "profile": fields.get("profile", "smoke"),
        "data_source": fields.get("data_source", "generated"),
        "data_dir": "",
        "seed": fields.get("seed", 1),
        "output_dir": ".cache/outputs",
    }
    inputs = records.Inputs.model_validate(
        fields.get("inputs")
        or {
            **records.current_code(task),
            "parameters": records.text_digest(str(parameters)),
            "data": "generated-data",
        }
    )
    record = {
        "task": task.name,
        "task_version": task.version,
        **{k: parameters[k] for k in ("model", "profile", "seed", "data_source")},
        "parameters": parameters,
        "finished_at": "2026-01-02T03:04:05+00:00",
        "wall_time_s": 1.0,
        "status": "succeeded",
        **fields,
        "inputs": inputs,
        "fingerprint": inputs.fingerprint,
    }
    if record["status"] == "succeeded":
        outcome = {
            "model_revision": "built locally",
            "recipe": {},
            "data_checksum": "d",
            "metrics": {},
        }
        record = {**outcome, **record}
    else:
        outcome_fields = set(records.Outcome.model_fields)
        record = {k: v for k, v in record.items() if k not in outcome_fields}
        record.setdefault("error", "RuntimeError: failed")
    return records.RunRecord.model_validate(record)
