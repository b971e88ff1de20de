"""The dependency parser's input features: a DP record as subword ids and, per eojeol, its first
and last subword, its last morpheme's POS tag and its gold head and label; padded batches of them
for the Trainer (see README.md here; the parser itself: `parser`)."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from kluebook.common.errors import KluebookError

from .data import DEPRELS, POS_TAGS

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

POS_PAD_ID = len(POS_TAGS)  # the root and padding
POS_IDS = {tag: index for index, tag in enumerate(POS_TAGS)}
DEPREL_IDS = {label: index for index, label in enumerate(DEPRELS)}
IGNORE_INDEX = -100
WORD_FEATURES = ("first_subword", "last_subword", "pos_ids", "heads", "labels")


def encode_parser_input(
    tokenizer: "PreTrainedTokenizerBase", record: dict, max_length: int = 256
) -> dict[str, list[int]]:
    """Parser input for one DP record: subword ids and, per eojeol, features and targets.

    `first_subword`/`last_subword` index `input_ids`; an eojeol whose subwords were cut by
    `max_length` (or that has none) points at `[SEP]`. `heads` are 1-based (0 = root),
    `labels` index DEPRELS, `pos_ids` the POS tag of the eojeol's last morpheme. A POS tag
    outside POS_TAGS is an error naming the guid, as in the official code (the hub's v1 copy has
    such tags where v1.1 fixed them).
    """
    if not tokenizer.is_fast:
        raise KluebookError("DP encoding needs a fast tokenizer (for its word ids)")
    encoding = tokenizer(
        record["word_forms"], is_split_into_words=True, truncation=True, max_length=max_length
    )
    size = len(record["word_forms"])
    first: list[int | None] = [None] * size
    last: list[int | None] = [None] * size
    for position, word in enumerate(encoding.word_ids()):
        if word is not None:
            first[word] = position if first[word] is None else first[word]
            last[word] = position
    sep = len(encoding["input_ids"]) - 1
    return {
        "input_ids": encoding["input_ids"],
        "attention_mask": encoding["attention_mask"],
        "first_subword": [sep if index is None else index for index in first],
        "last_subword": [sep if index is None else index for index in last],
        "pos_ids": [_pos_id(record["guid"], pos) for pos in record["pos"]],
        "heads": list(record["heads"]),
        "labels": [DEPREL_IDS[label] for label in record["deprels"]],
    }


def _pos_id(guid: str, pos: str) -> int:
    tag = pos.split("+")[-1]
    if tag not in POS_IDS:
        raise KluebookError(f"{guid}: unknown POS tag {tag!r} (the parser knows {len(POS_TAGS)})")
    return POS_IDS[tag]


def _pad(rows: Sequence[Sequence[int]], value: int) -> torch.Tensor:
    width = max(len(row) for row in rows)
    return torch.tensor([[*row, *[value] * (width - len(row))] for row in rows])


def collate(features: Sequence[dict], pad_token_id: int) -> dict[str, torch.Tensor]:
    """A padded batch of `encode_parser_input` outputs, with `word_mask` marking real eojeols."""
    padding = {
        "first_subword": 0,
        "last_subword": 0,
        "pos_ids": POS_PAD_ID,
        "heads": IGNORE_INDEX,
        "labels": IGNORE_INDEX,
    }
    batch = {
        "input_ids": _pad([f["input_ids"] for f in features], pad_token_id),
        "attention_mask": _pad([f["attention_mask"] for f in features], 0),
        "word_mask": _pad([[1] * len(f["heads"]) for f in features], 0).bool(),
    }
    for key in WORD_FEATURES:
        batch[key] = _pad([f[key] for f in features], padding[key])
    return batch


@dataclass
class ParserCollator:
    """A Trainer data collator: `collate` on parser features."""

    pad_token_id: int

    def __call__(self, features: Sequence[dict]) -> dict[str, torch.Tensor]:
        return collate(features, self.pad_token_id)
