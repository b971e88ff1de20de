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
