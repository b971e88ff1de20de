"""The offline stand-in of the prompted track: a tiny randomly initialised causal LM.

It is of the Qwen3 family (2 layers, hidden size 64, grouped-query attention)
with the deterministic WordPiece vocabulary of the encoder stand-in
(`kluebook.training.tiny_model`), learned from the text it will be prompted with: `[CLS]` opens
every text (its beginning of sequence), `<|im_end|>` ends an answer as it ends a chat turn, `[PAD]`
pads. Its tokenizer has a small chat template (ChatML), so the chat path of the rendering runs
offline too. Built once per text and cached by a hash of it; the same bytes on every build.
"""

import hashlib
from collections.abc import Iterable
from pathlib import Path

from kluebook.common.paths import CACHE
from kluebook.training.tiny_model import (
    TINY_CAUSAL_LM as TINY_CAUSAL_LM,  # its name, with its builder
)
from kluebook.training.tiny_model import save_once, wordpiece_vocabulary

TINY_CAUSAL_SIZE = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
}
# RoPE positions: a 5-shot prompt of the longest tasks fits.
TINY_CONTEXT = 8192
# ChatML, the layout of the Qwen family's own template (an OpenAI-compatible server that knows
# the family finds the assistant's turn by its opening line).
CHAT_TOKENS = ["<|im_start|>", "<|im_end|>"]
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
# Part of the cached folder's name, bumped when the build changes what the folder holds.
BUILD_VERSION = 2


def tiny_causal_tokenizer(texts: Iterable[str], vocab_size: int = 2000):
    """A fast tokenizer over the WordPiece vocabulary of `texts`, with the chat template."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {token: index for index, token in enumerate(wordpiece_vocabulary(texts, vocab_size))}
    backend = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.decoder = decoders.WordPiece()
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A", pair="[CLS] $A $B", special_tokens=[("[CLS]", vocab["[CLS]"])]
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token="[CLS]",
        # The end of a turn ends an answer: an OpenAI-compatible server that knows the family
        # (`transformers serve`) stops a Qwen3's answer there, and at no other special token.
        eos_token=CHAT_TOKENS[1],
        pad_token="[PAD]",
        unk_token="[UNK]",
        additional_special_tokens=CHAT_TOKENS,
        model_max_length=TINY_CONTEXT,
        padding_side="left",
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_tiny_causal_lm(texts: list[str], seed: int = 0, vocab_size: int = 2000) -> Path:
    """Build (once) and cache the tiny causal LM for this text; return its folder."""
    import torch
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    name = f"tiny-qwen3-{digest}-v{vocab_size}-s{seed}-b{BUILD_VERSION}"
    folder = CACHE / "models" / name
    if (folder / "config.json").exists():
        return folder
    tokenizer = tiny_causal_tokenizer(texts, vocab_size)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        max_position_embeddings=TINY_CONTEXT,
        tie_word_embeddings=False,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        **TINY_CAUSAL_SIZE,
    )
    with torch.random.fork_rng():  # leave the caller's random state as it was
        torch.manual_seed(seed)
        model = Qwen3ForCausalLM(config)
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        do_sample=False,
    )
    return save_once(folder, model, tokenizer)
