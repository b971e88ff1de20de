"""NER: character-level named entity recognition with BIO tags (see README.md here).

A record is {guid, sentence, chars, tags}: `sentence` is the official markup line
(`<text:TYPE>` around entities), `chars` the sentence's characters, spaces included, and `tags`
one tag per character. The official TSV has no guid field; the guid is the text after `## ` on
the sentence's header line, up to the tab.
"""

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kluebook.common.errors import KluebookError
from kluebook.data.klue_tsv import SentenceBlock, read_sentence_blocks, write_sentence_blocks
from kluebook.scoring.metric_forms import F1, class_counts
from kluebook.scoring.switches import NO_SWITCHES, Switches
from kluebook.tasks.interface import HUB_COPY, LineProblem, with_position_guids

from .metric import ENTITY_TAGS, ENTITY_TYPES, TAGS, ner_scores, scoring_sequence, strict_entities

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

__all__ = ["ENTITY_TYPES", "HUB_TAGS", "TAGS"]

# The Hugging Face `klue/klue` ClassLabel order, remapped on load.
HUB_TAGS = (
    *("B-DT", "I-DT", "B-LC", "I-LC", "B-OG", "I-OG"),
    *("B-PS", "I-PS", "B-QT", "I-QT", "B-TI", "I-TI"),
    "O",
)
HEADER = (
    "## 토큰, 레이블 구분자 : \\t",
    "## 토큰 구분자 : \\n",
    "## 문장 구분자 : \\n\\n",
    "## 주석 : ##",
    "## 컬럼명 : CHAR\tNE_TAG",
)
COLUMNS = HEADER[-1].removeprefix("## 컬럼명 : ")
TAG_IDS = {tag: index for index, tag in enumerate(TAGS)}


def markup(chars: Sequence[str], tags: Sequence[str]) -> str:
    """The official sentence line: each entity (B-X then I-X, or a stray I-X run) as `<text:X>`."""
    parts = []
    entity_type = None
    for char, tag in zip(chars, tags, strict=True):
        prefix, _, kind = tag.partition("-")
        if entity_type and not (prefix == "I" and kind == entity_type):
            parts.append(f":{entity_type}>")
            entity_type = None
        if prefix in ("B", "I") and entity_type is None:
            parts.append("<")
            entity_type = kind
        parts.append(char)
    if entity_type:
        parts.append(f":{entity_type}>")
    return "".join(parts)


def read_official(path: str | Path) -> list[dict]:
    """Records of an official NER TSV file (one `char<TAB>tag` line per character)."""
    records = []
    for block in read_sentence_blocks(path, COLUMNS, "NER"):
        guid, chars, tags = block.guid, [], []
        for number, line in enumerate(block.items, start=block.first_line):
            char, tab, tag = line.partition("\t")
            if not tab or len(char) != 1:
                raise KluebookError(f"{path}:{number}: {guid}: expected CHAR<TAB>TAG, got {line!r}")
            if tag not in TAGS:
                raise KluebookError(f"{path}:{number}: {guid}: unknown tag {tag!r}")
            chars.append(char)
            tags.append(tag)
        records.append({"guid": guid, "sentence": block.sentence, "chars": chars, "tags": tags})
    return records


def write_official(records: Iterable[dict], path: str | Path) -> None:
    """Write records as an official NER TSV file: one line per character and its tag."""
    blocks = (
        SentenceBlock(
            r["guid"], r["sentence"], list(map("\t".join, zip(r["chars"], r["tags"], strict=True)))
        )
        for r in records
    )
    write_sentence_blocks(path, HEADER, blocks)


def from_hub(rows: Iterable[dict]) -> list[dict]:
    """Hub rows (`tokens` = characters incl. spaces, `ner_tags` in the hub order) as records,
    with guids from their positions (the hub has none)."""
    tags = (
        (row["sentence"], list(row["tokens"]), [HUB_TAGS[tag] for tag in row["ner_tags"]])
        for row in rows
    )
    return with_position_guids(
        "ner", ({"sentence": s, "chars": chars, "tags": t} for s, chars, t in tags)
    )


def _predicted_tags(record: dict, prediction: dict) -> list[str]:
    tags = prediction.get("tags")
    guid, expected = record["guid"], len(record["chars"])
    if not isinstance(tags, list) or len(tags) != expected:
        got = f"{len(tags)}" if isinstance(tags, list) else repr(tags)
        raise KluebookError(
            f"{guid}: expected {expected} tags (one per character, spaces included), got {got}"
        )
    unknown = [tag for tag in tags if tag not in TAGS]
    if unknown:
        raise KluebookError(f"{guid}: unknown tag {unknown[0]!r}")
    return tags


def _boundary(record: dict, prediction: dict) -> tuple[str, str] | None:
    boundary = prediction.get("boundary")
    if boundary is None:
        return None
    if not isinstance(boundary, list) or len(boundary) != 2 or not set(boundary) <= set(TAGS):
        raise KluebookError(
            f"{record['guid']}: boundary must be the two tags predicted at [CLS] and at the "
            f"last padded position, got {boundary!r}"
        )
    return boundary[0], boundary[1]


def score(records: list[dict], predictions: dict, switches: Switches = NO_SWITCHES) -> dict:
    """Official entity and character F1 (and the no-`O` character F1) of tag predictions.

    Lines may carry `boundary`, the tags predicted at `[CLS]` and at the last padded position,
    which the baseline scores too (all lines or none). Where the switches say the recipe scores
    them (`ner_boundary_tags: model`, the paper profile's value) they are required.
    """
    predicted = [_predicted_tags(r, predictions[r["guid"]]) for r in records]
    ends = [_boundary(r, predictions[r["guid"]]) for r in records]
    given = [end is not None for end in ends]
    if any(given) and not all(given):
        missing = next(r["guid"] for r, has in zip(records, given, strict=True) if not has)
        raise KluebookError(f"{missing}: boundary is given for some sentences but not this one")
    if scores_boundaries(switches) and records and not all(given):
        raise KluebookError(
            "the recipe scores the predictions at [CLS] and at the last padded position "
            "(ner_boundary_tags: model): give each line its `boundary` tags "
            "(kluebook.tasks.ner.data.boundary_tags)"
        )
    boundaries = ends if all(given) and records else None
    return ner_scores(
        [r["chars"] for r in records], [r["tags"] for r in records], predicted, boundaries
    )


def resampling_statistics(records: list[dict], predictions: dict[str, dict]) -> dict:
    """Per-sentence entity and character counts, from which kluebook.scoring.bootstrap recomputes
    the metrics. Each sentence's entities are its own: the gold has `O` at both ends of every
    sentence, so a predicted entity that runs into the next sentence is wrong either way, and
    the next sentence's leading `I-` tags start nothing (strict IOB2)."""
    rows = [predictions[r["guid"]] for r in records]
    given = bool(rows) and all(row.get("boundary") is not None for row in rows)
    size = len(records)
    entity_counts = {
        name: np.zeros((size, len(ENTITY_TYPES)), dtype=int) for name in ("tp", "gold", "pred")
    }
    column = {kind: index for index, kind in enumerate(ENTITY_TYPES)}
    flat_gold, flat_pred, sentence = [], [], []
    for index, (record, row) in enumerate(zip(records, rows, strict=True)):
        ends = [tuple(row["boundary"])] if given else None
        gold = scoring_sequence([(record["chars"], record["tags"])])
        pred = scoring_sequence([(record["chars"], row["tags"])], ends)
        flat_gold += gold
        flat_pred += pred
        sentence += [index] * len(gold)
        gold_entities, pred_entities = strict_entities(gold), strict_entities(pred)
        for name, found in (
            ("gold", gold_entities),
            ("pred", pred_entities),
            ("tp", gold_entities & pred_entities),
        ):
            for kind, _, _ in found:
                entity_counts[name][index, column[kind]] += 1
    return {
        "entity_f1": F1(**entity_counts, ratio=True),
        "char_f1": F1(
            **class_counts(flat_gold, flat_pred, sentence, size, TAGS),
            classes="all",
            zero_division=1.0,
        ),
        "char_f1_without_o": F1(
            **class_counts(flat_gold, flat_pred, sentence, size, ENTITY_TAGS),
            classes="all",
            zero_division=1.0,
        ),
    }


def scores_boundaries(switches: Switches) -> bool:
    """Whether these recipe switches score the boundary tags (`ner_boundary_tags: model`)."""
    return switches.get("ner_boundary_tags") == "model"


def boundary_tags(logits) -> list[tuple[str, str]]:
    """Each sentence's predicted tags at `[CLS]` (the first position) and at the last position
    of its row: with every batch padded to `max_length` (`pad_to_max_length`), the last padded
    position the baseline scores. `logits`: (sentences, positions, tags), as `Trainer.predict`
    returns them."""
    predicted = logits.argmax(-1)
    return [(TAGS[int(row[0])], TAGS[int(row[-1])]) for row in predicted]


def eojeols(chars: Sequence[str]) -> tuple[list[str], list[int]]:
    """The sentence split on single spaces, and the character index where each eojeol starts."""
    words = "".join(chars).split(" ")
    starts = []
    position = 0
    for word in words:
        starts.append(position)
        position += len(word) + 1
    return words, starts


def encode_tagged_sentence(
    tokenizer: "PreTrainedTokenizerBase",
    chars: Sequence[str],
    tags: Sequence[str],
    max_length: int,
) -> dict[str, list]:
    """Model input for one sentence, as the baseline builds it.

    Each eojeol is tokenised on its own; each subword's label is the tag id of its first
    character, `[CLS]` and `[SEP]` are labelled `O`; subwords beyond `max_length` (special tokens
    included) are cut. `char_spans` gives each subword's (start, end) characters in `chars`,
    taken from the fast tokenizer's offsets, so an `[UNK]` subword covers exactly the
    characters it replaced. (The baseline instead gives every subword of an eojeol containing
    `[UNK]` the eojeol's first tag, and its prediction alignment miscounts `[UNK]` as five
    characters, KLUE-baseline issue 9.)
    """
    if not tokenizer.is_fast:
        raise KluebookError("NER encoding needs a fast tokenizer (for its character offsets)")
    words, starts = eojeols(chars)
    encoding = tokenizer(
        words,
        is_split_into_words=True,
        return_offsets_mapping=True,
        truncation=True,
        max_length=max_length,
    )
    char_spans = [
        (starts[word] + start, starts[word] + end)
        for word, (start, end) in zip(encoding.word_ids(), encoding["offset_mapping"], strict=True)
        if word is not None
    ]
    outside = TAG_IDS["O"]
    labels = [TAG_IDS[tags[start]] if end > start else outside for start, end in char_spans]
    return {
        "input_ids": encoding["input_ids"],
        "attention_mask": encoding["attention_mask"],
        "labels": [outside, *labels, outside],
        "char_spans": char_spans,
    }


def project_to_characters(
    chars: Sequence[str], char_spans: Sequence[tuple[int, int]], subword_tags: Sequence[str]
) -> list[str]:
    """One tag per character (spaces included) from the tags predicted for the subwords.

    `subword_tags` are the predictions at the subword positions (between `[CLS]` and `[SEP]`),
    aligned with `char_spans`. The first character of a subword takes its tag; the others take
    `I-<type>` of it (`O` stays `O`). Characters no subword covers (spaces, cut text) get `O`.
    """
    tags = ["O"] * len(chars)
    for (start, end), tag in zip(char_spans, subword_tags, strict=True):
        if end <= start:
            continue
        tags[start] = tag
        inside = "O" if tag == "O" else f"I-{tag[2:]}"
        for position in range(start + 1, end):
            tags[position] = inside
    return tags


def entity_spans(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, type) of each entity in strict IOB2, as seqeval's strict mode reads it.

    An entity is B-X followed by I-X; an I-X that does not continue an entity of type X starts
    nothing (it is counted as no entity at all). `end` is exclusive.
    """
    spans = []
    start, kind = None, None
    for position, tag in enumerate([*tags, "O"]):
        prefix, _, tag_kind = tag.partition("-")
        if kind is not None and not (prefix == "I" and tag_kind == kind):
            spans.append((start, position, kind))
            start, kind = None, None
        if prefix == "B":
            start, kind = position, tag_kind
    return spans


ENTITY_COLOURS = {
    "PS": "#f4a6a6",
    "LC": "#a6d8f4",
    "OG": "#b8e6a6",
    "DT": "#f4d9a6",
    "TI": "#d9b8f4",
    "QT": "#f4b8e0",
}


def highlight_html(chars: Sequence[str], tags: Sequence[str]) -> str:
    """The sentence as HTML, each entity in a coloured span labelled with its type."""
    from html import escape

    parts = []
    position = 0
    for start, end, kind in entity_spans(tags):
        parts.append(escape("".join(chars[position:start])))
        text = escape("".join(chars[start:end]))
        colour = ENTITY_COLOURS.get(kind, "#dddddd")
        parts.append(
            f'<span style="background:{colour};padding:0 2px;border-radius:3px">'
            f"{text}<sub>{kind}</sub></span>"
        )
        position = end
    parts.append(escape("".join(chars[position:])))
    return "".join(parts)


def gold_predictions(records: list[dict], switches: Switches = NO_SWITCHES) -> list[dict]:
    """The prediction lines that reproduce the gold: a worked example of the file format. In a
    recipe that scores the boundary tags, each line has them too: `O` at both ends, as the gold."""
    ends = {"boundary": ["O", "O"]} if scores_boundaries(switches) else {}
    return [{"guid": r["guid"], "tags": list(r["tags"]), **ends} for r in records]


def check_line(record: dict, row: dict) -> LineProblem | None:
    """A line's tags: one of TAGS per character of the sentence (spaces included), and its
    `boundary`, if any, two tags."""
    tags, size = row.get("tags"), len(record["chars"])
    if not isinstance(tags, list):
        return LineProblem("line without a tags list", repr(tags)[:40])
    if tags and all(type(tag) is int for tag in tags):
        numbered = f"{HUB_COPY} numbers the tags 0-{len(HUB_TAGS) - 1} as {', '.join(HUB_TAGS)}"
        return LineProblem("hub tag ids", repr(tags[:3]), numbered)
    if len(tags) != size:
        return LineProblem(
            "tags list of the wrong length (one tag per character, spaces included)",
            f"{len(tags)} for {size}",
        )
    unknown = [tag for tag in tags if tag not in TAGS]
    if unknown:
        return LineProblem("unknown tag", repr(unknown[0])[:40])
    boundary = row.get("boundary")
    if boundary is not None and (
        not isinstance(boundary, list) or len(boundary) != 2 or not set(boundary) <= set(TAGS)
    ):
        return LineProblem("boundary that is not two tags", repr(boundary)[:40])
    return None
