"""Checkpoints: the released KLUE models from the hub, or the offline tiny stand-in.

The stand-in mirrors the KLUE-RoBERTa family (book/methods.md): a BertTokenizer WordPiece vocabulary
(no lower-casing, `##` continuations, `[CLS]`=0 `[PAD]`=1 `[SEP]`=2 as in the RoBERTa configs),
a RoBERTa encoder with one token type (2 layers, hidden size 128, no dropout), randomly
initialised (a task may ask for wider embedding tables). Its vocabulary is trained on the text
it will be fine-tuned on, and the result is cached by a hash of that text.
"""

import hashlib
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from kluebook.paths import CACHE

if TYPE_CHECKING:
    from transformers import BertTokenizer

# torch, tokenizers and transformers are imported where they are used: the runner reads
# TINY_MODEL from here without paying for them.

TINY_MODEL = "kluebook/tiny-roberta"
SPECIAL_TOKENS = ["[CLS]", "[PAD]", "[SEP]", "[UNK]", "[MASK]"]
# Hidden size 128 without dropout: from random weights it learns every smoke task within a few
# hundred steps, seed after seed. At hidden size 64 with dropout 0.1, relation extraction needed
# 40 epochs and still ended anywhere between 57 and 97 micro F1 depending on the seed.
TINY_SIZE = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4}
TINY_DROPOUT = 0.0
# Part of the cached model's folder name, bumped when the build changes what a cached model
# holds (2: a fixed vocabulary order; 3: hidden size 128 without dropout).
BUILD_VERSION = 3


def train_wordpiece_tokenizer(
    texts: Iterable[str], vocab_size: int = 2000, extra_special_tokens: Iterable[str] = ()
) -> "BertTokenizer":
    """A BertTokenizer whose WordPiece vocabulary is learned from `texts`."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import BertTokenizer

    backend = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False
    )
    backend.train_from_iterator(texts, trainer=trainer)
    # The trainer numbers tokens in an order that changes from process to process; number them
    # in a fixed order (special tokens first) so that every build of the same text is the same.
    learned = sorted(set(backend.get_vocab()) - set(SPECIAL_TOKENS))
    vocab = {token: index for index, token in enumerate([*SPECIAL_TOKENS, *learned])}
    tokenizer = BertTokenizer(vocab=vocab, do_lower_case=False)
    if extra_special_tokens:
        tokenizer.add_special_tokens({"additional_special_tokens": list(extra_special_tokens)})
    return tokenizer


def build_tiny_model(
    texts: list[str], seed: int = 0, vocab_size: int = 2000, embedding_std: float | None = None
) -> Path:
    """Build (once) and cache the tiny RoBERTa-family model for this text; return its folder.

    `embedding_std`: draw the word, position and token-type tables from N(0, embedding_std)
    instead of the transformers default N(0, 0.02).
    """
    import torch
    from transformers import RobertaConfig, RobertaModel

    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    name = f"tiny-roberta-{digest}-v{vocab_size}-s{seed}-b{BUILD_VERSION}"
    folder = CACHE / "models" / (name if embedding_std is None else f"{name}-e{embedding_std:g}")
    if (folder / "config.json").exists():
        return folder
    tokenizer = train_wordpiece_tokenizer(texts, vocab_size)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        intermediate_size=4 * TINY_SIZE["hidden_size"],
        max_position_embeddings=514,
        type_vocab_size=1,
        bos_token_id=0,
        pad_token_id=1,
        eos_token_id=2,
        tokenizer_class="BertTokenizer",
        hidden_dropout_prob=TINY_DROPOUT,
        attention_probs_dropout_prob=TINY_DROPOUT,
        **TINY_SIZE,
    )
    with torch.random.fork_rng():  # leave the caller's random state as it was
        torch.manual_seed(seed)
        model = RobertaModel(config)
        if embedding_std is not None:
            _widen_embeddings(model.embeddings, embedding_std)
    # Runs started at once may build the same model: each writes its own staging folder, the
    # first rename wins and the others keep its result.
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    try:
        staging.rename(folder)
    except OSError:
        if not (folder / "config.json").exists():
            raise
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def _widen_embeddings(embeddings, std: float) -> None:
    """Redraw the embedding tables from N(0, std), padding rows kept at zero."""
    import torch

    with torch.no_grad():
        for table in (
            embeddings.word_embeddings,
            embeddings.position_embeddings,
            embeddings.token_type_embeddings,
        ):
            table.weight.normal_(std=std)
            if table.padding_idx is not None:
                table.weight[table.padding_idx].zero_()


def uses_token_type_ids(model_name_or_path: str | Path) -> bool:
    """Whether the checkpoint takes segment ids: BERT-like yes, RoBERTa no (book/methods.md)."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(model_name_or_path)
    return config.model_type in {"bert", "xlnet", "electra"}
