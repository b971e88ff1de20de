"""Shared fixtures: the real KLUE files in ../shared/klue-data, skipped when absent."""

from pathlib import Path

import pytest

from kluebook.paths import SHARED_KLUE_DATA


@pytest.fixture(scope="session")
def klue_data() -> Path:
    """The folder of real KLUE v1.1 files; tests using it skip with a reason when it is absent."""
    if not SHARED_KLUE_DATA.is_dir():
        pytest.skip(f"real KLUE data not found at {SHARED_KLUE_DATA} (../shared/klue-data)")
    return SHARED_KLUE_DATA


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
