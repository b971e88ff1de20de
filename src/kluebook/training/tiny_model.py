"""Checkpoints: the released KLUE models from the hub, or the offline tiny stand-in.

The stand-in mirrors the KLUE-RoBERTa family (book/methods.md): a BertTokenizer WordPiece vocabulary
(no lower-casing, `##` continuations, `[CLS]`=0 `[PAD]`=1 `[SEP]`=2 as in the RoBERTa configs),
a RoBERTa encoder with one token type (2 layers, hidden size 128, no dropout), randomly
initialised (a task may ask for wider embedding tables). Its vocabulary is trained on the text
it will be fine-tuned on, and the result is cached by a hash of that text.
"""

import hashlib
import heapq
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

from kluebook.common.paths import CACHE

if TYPE_CHECKING:
    from transformers import BertTokenizer

# torch, tokenizers and transformers are imported where they are used: the runner reads
# TINY_MODEL from here without paying for them.

TINY_MODEL = "kluebook/tiny-roberta"
# The causal stand-in of the prompted runs, built by `kluebook.prompting.tiny_causal_lm`.
TINY_CAUSAL_LM = "kluebook/tiny-qwen3"
SPECIAL_TOKENS = ["[CLS]", "[PAD]", "[SEP]", "[UNK]", "[MASK]"]
# Hidden size 128 without dropout: from random weights it learns every smoke task within a few
# hundred steps, seed after seed. At hidden size 64 with dropout 0.1, relation extraction needed
# 40 epochs and still ended anywhere between 57 and 97 micro F1 depending on the seed.
TINY_SIZE = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4}
TINY_DROPOUT = 0.0
# Part of the cached model's folder name, bumped when the build changes what a cached model
# holds (2: a fixed vocabulary order; 3: hidden size 128 without dropout; 4: the vocabulary
# computed here, the same in every process).
BUILD_VERSION = 4


def wordpiece_vocabulary(texts: Iterable[str], vocab_size: int = 2000) -> list[str]:
    """The WordPiece vocabulary of `texts`, a function of the text alone.

    The words are those BERT's normaliser and pre-tokeniser make (no lower-casing); each starts
    as its characters, continuations marked `##`. As in the tokenizers library's
    WordPieceTrainer, pairs of adjacent pieces are merged most frequent first until the
    vocabulary has `vocab_size` tokens; a tie goes to the pair whose merged token, then whose
    pieces, sort first (that trainer breaks ties by ids numbered in hash order, which is why
    its vocabulary changed from process to process). Returned in id order: the special tokens,
    the characters, bare and as continuations, sorted, then the merged tokens in the order
    they were learned.
    """
    from tokenizers import normalizers, pre_tokenizers  # lazy: only a new vocabulary needs it

    normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
    pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    counts = Counter(
        word
        for text in texts
        for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(text))
    )
    words = [[word[0], *(f"##{char}" for char in word[1:])] for word in counts]
    frequencies = list(counts.values())
    pairs: Counter[tuple[str, str]] = Counter()
    holders: defaultdict[tuple[str, str], set[int]] = defaultdict(set)
    for index, pieces in enumerate(words):
        for pair in pairwise(pieces):
            pairs[pair] += frequencies[index]
            holders[pair].add(index)
    # Every character on its own, as a word may start with one seen only inside words, and
    # every continuation piece.
    alphabet = {char for word in counts for char in word}
    alphabet = sorted(alphabet.union(*words) - set(SPECIAL_TOKENS))
    vocab = [*SPECIAL_TOKENS, *alphabet]
    known = set(vocab)
    queue = [(-count, _merged(*pair), pair) for pair, count in pairs.items()]
    heapq.heapify(queue)
    while len(vocab) < vocab_size and queue:
        negative_count, token, pair = heapq.heappop(queue)
        if pairs.get(pair, 0) != -negative_count:
            continue  # an entry from before the pair's count changed
        if token not in known:
            vocab.append(token)
            known.add(token)
        changed = set()
        for index in holders.pop(pair):
            pieces, frequency = words[index], frequencies[index]
            for old in pairwise(pieces):
                pairs[old] -= frequency
                changed.add(old)
            pieces = words[index] = _merge(pieces, pair, token)
            for new in pairwise(pieces):
                pairs[new] += frequency
                holders[new].add(index)
                changed.add(new)
        del pairs[pair]
        for other in changed - {pair}:
            if pairs[other] > 0:
                heapq.heappush(queue, (-pairs[other], _merged(*other), other))
    return vocab


def _merged(left: str, right: str) -> str:
    return left + right.removeprefix("##")


def _merge(pieces: list[str], pair: tuple[str, str], token: str) -> list[str]:
    """`pieces` with every occurrence of `pair`, left to right, replaced by `token`."""
    merged, index = [], 0
    while index < len(pieces):
        if index + 1 < len(pieces) and (pieces[index], pieces[index + 1]) == pair:
            merged.append(token)
            index += 2
        else:
            merged.append(pieces[index])
            index += 1
    return merged


def train_wordpiece_tokenizer(
    texts: Iterable[str], vocab_size: int = 2000, extra_special_tokens: Iterable[str] = ()
) -> "BertTokenizer":
    """A BertTokenizer whose WordPiece vocabulary is learned from `texts`
    (`wordpiece_vocabulary`)."""
    from transformers import BertTokenizer  # lazy: seconds to import

    vocab = {token: index for index, token in enumerate(wordpiece_vocabulary(texts, vocab_size))}
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
    import torch  # lazy: torch takes seconds to import, and most commands never need it
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
    return save_once(folder, model, tokenizer)


def _widen_embeddings(embeddings, std: float) -> None:
    """Redraw the embedding tables from N(0, std), padding rows kept at zero."""
    import torch  # lazy: torch takes seconds to import, and most commands never need it

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
    from transformers import AutoConfig  # lazy: seconds to import

    config = AutoConfig.from_pretrained(model_name_or_path)
    return config.model_type in {"bert", "xlnet", "electra"}


def save_once(folder: Path, model, tokenizer) -> Path:
    """Save a built stand-in at `folder`. Runs started at once may build the same model: each
    writes its own staging folder, the first rename wins and the others keep its result."""
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
