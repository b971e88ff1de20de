"""NER: entity-level and character-level macro F1 as the KLUE baseline computes them.

Both metrics are computed on one long tag sequence: for every sentence, the tags of its
non-space characters wrapped in one tag at each end (the baseline's `[CLS]` and last padded
positions), all sentences concatenated. The gold has `O` at both ends; the prediction has the
model's tags there when they are given (`boundaries`, as the baseline scores them), else `O`.
"""

from collections.abc import Iterable, Sequence

from seqeval.metrics import f1_score as entity_f1_score
from seqeval.scheme import IOB2
from sklearn.metrics import f1_score

# The baseline's tag order (the hub's differs; see README.md here).
TAGS = (
    *("B-PS", "I-PS", "B-LC", "I-LC", "B-OG", "I-OG"),
    *("B-DT", "I-DT", "B-TI", "I-TI", "B-QT", "I-QT"),
    "O",
)
ENTITY_TYPES = ("PS", "LC", "OG", "DT", "TI", "QT")
ENTITY_TAGS = tuple(tag for tag in TAGS if tag != "O")
_TAG_IDS = {tag: index for index, tag in enumerate(TAGS)}
# Long enough that seqeval's per-sequence overhead stays small (see _split_after_common_o).
_PIECE_LENGTH = 200


def scoring_sequence(
    sentences: Iterable[tuple[Sequence[str], Sequence[str]]],
    boundaries: Iterable[tuple[str, str]] | None = None,
) -> list[str]:
    """The baseline's evaluation sequence of (characters, tags) sentences.

    Space characters are dropped, each sentence is wrapped as first + tags + last, and the
    sentences are concatenated. `boundaries` gives each sentence's (first, last) tags: the
    model's predictions at `[CLS]` and at the last padded position; `O` and `O` without them.
    """
    sentences = list(sentences)
    ends = [("O", "O")] * len(sentences) if boundaries is None else list(boundaries)
    if len(ends) != len(sentences):
        raise ValueError(f"{len(sentences)} sentences but {len(ends)} boundary pairs")
    sequence = []
    for (chars, tags), (first, last) in zip(sentences, ends, strict=True):
        if len(chars) != len(tags):
            raise ValueError(f"{len(chars)} characters but {len(tags)} tags")
        sequence.append(first)
        sequence.extend(tag for char, tag in zip(chars, tags, strict=True) if char != " ")
        sequence.append(last)
    return sequence


def _check_lengths(gold: Sequence[str], pred: Sequence[str]) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold tags but {len(pred)} predicted tags")


def entity_macro_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """seqeval strict IOB2 entity F1, averaged over the entity types in gold or prediction, x100.

    An entity is B-X followed by I-X; an I-X that does not continue an entity of type X starts
    nothing. A predicted entity counts only with the exact type and boundaries.
    """
    _check_lengths(gold, pred)
    gold_parts, pred_parts = _split_after_common_o(gold, pred)
    score = entity_f1_score(gold_parts, pred_parts, average="macro", mode="strict", scheme=IOB2)
    return 100.0 * float(score)


def _split_after_common_o(
    gold: Sequence[str], pred: Sequence[str]
) -> tuple[list[list[str]], list[list[str]]]:
    """Both sequences cut into pieces of at least _PIECE_LENGTH tags, each cut after a shared `O`.

    seqeval's strict mode takes time quadratic in the length of one sequence (it copies the
    rest of the sequence at every entity). A cut after a position where both are `O` changes no
    entity: an `O` ends every entity, and the tag after it sees the same `O` before it as at the
    start of a sequence. So the scores are those of the single concatenated sequence.
    """
    gold_parts, pred_parts = [], []
    start = 0
    for position, (gold_tag, pred_tag) in enumerate(zip(gold, pred, strict=True)):
        if gold_tag == pred_tag == "O" and position + 1 - start >= _PIECE_LENGTH:
            gold_parts.append(list(gold[start : position + 1]))
            pred_parts.append(list(pred[start : position + 1]))
            start = position + 1
    if start < len(gold):
        gold_parts.append(list(gold[start:]))
        pred_parts.append(list(pred[start:]))
    return gold_parts, pred_parts


def _char_f1(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]) -> float:
    """sklearn macro F1 over `labels` with zero_division=1, on tag ids as the baseline does."""
    _check_lengths(gold, pred)
    gold_ids, pred_ids = _tag_ids(gold), _tag_ids(pred)
    label_ids = [_TAG_IDS[label] for label in labels]
    score = f1_score(gold_ids, pred_ids, labels=label_ids, average="macro", zero_division=1)
    return 100.0 * float(score)


def _tag_ids(tags: Sequence[str]) -> list[int]:
    try:
        return [_TAG_IDS[tag] for tag in tags]
    except KeyError as error:
        raise ValueError(f"unknown NER tag {error.args[0]!r}") from None


def char_macro_f1(gold: Sequence[str], pred: Sequence[str]) -> float:
    """The official character F1: sklearn macro F1 over all 13 tags, `O` included, x100.

    With zero_division=1 a tag that occurs neither in gold nor in prediction scores F1 = 1.
    """
    return _char_f1(gold, pred, TAGS)


def char_macro_f1_without_o(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Character F1 over the 12 entity tags only, as the paper defines it (KLUE-baseline PR #7)."""
    return _char_f1(gold, pred, ENTITY_TAGS)


def ner_scores(
    chars: Sequence[Sequence[str]],
    gold_tags: Sequence[Sequence[str]],
    pred_tags: Sequence[Sequence[str]],
    boundaries: Sequence[tuple[str, str]] | None = None,
) -> dict[str, float]:
    """Entity F1, official character F1 and the no-`O` character F1 of whole sentences.

    `chars` holds each sentence's characters, spaces included; the tag lists align with them.
    `boundaries`: each sentence's predicted tags at `[CLS]` and at the last padded position,
    which the baseline scores against `O`; without them both are `O`.
    """
    gold = scoring_sequence(zip(chars, gold_tags, strict=True))
    pred = scoring_sequence(zip(chars, pred_tags, strict=True), boundaries)
    return {
        "entity_f1": entity_macro_f1(gold, pred),
        "char_f1": char_macro_f1(gold, pred),
        "char_f1_without_o": char_macro_f1_without_o(gold, pred),
    }


def strict_entities(tags: Sequence[str]) -> set[tuple[str, int, int]]:
    """(type, start, end) of each entity under strict IOB2, as seqeval finds them: B-X starts
    one, the I-X right after it continue it, anything else ends it; a stray I-X starts none."""
    found, start, kind = set(), None, None
    for position, tag in enumerate([*tags, "O"]):
        if start is not None and tag != f"I-{kind}":
            found.add((kind, start, position))
            start = None
        if tag.startswith("B-"):
            start, kind = position, tag[2:]
    return found
