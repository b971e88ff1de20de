"""KLUE-NER prompted: the sentence copied with its entities marked (see book/prompting.md).

The answer is the sentence, one line, with each entity written `[entity:TYPE]` (TYPE one of
PS, LC, OG, DT, TI, QT). It is read strictly: with every mark replaced by its entity text, the
answer must be the sentence itself, character for character (surrounding whitespace aside);
then each entity's first character is tagged B-TYPE and its others I-TYPE, everything else O.
An empty answer, a second line, or a bracket that is no well-formed mark (an unknown type, an
empty entity) makes the answer unreadable; marks that read but whose plain text is not the
sentence (a copy that changes it) make it ungrounded, scored as the fallback. Entity text
cannot contain `[` or `]`.

A prompted model has no predictions at `[CLS]` and at the last padded position, which the
official scoring reads in a run that scores them (`ner_boundary_tags: model`): every line gives
`O` at both, the value the scoring takes for a model without them, so the line reads under
either setting and scores the same.
"""

import re

from kluebook.tasks.prompt_answers import refuse_ranking
from kluebook.tasks.prompt_items import PromptItem, Ungrounded

from .data import entity_spans
from .metric import ENTITY_TYPES

_MARK = re.compile(r"\[([^\[\]]+?):(" + "|".join(ENTITY_TYPES) + r")\]")
# The stray inside-tag of the fallback: it starts no entity in the strict IOB2 reading.
_STRAY = f"I-{ENTITY_TYPES[0]}"
NO_BOUNDARY = ["O", "O"]

rank_prediction = refuse_ranking


def marked_sentence(chars: list[str], tags: list[str]) -> str:
    """The sentence with each entity of `tags` written `[entity:TYPE]`."""
    parts, position = [], 0
    for start, end, kind in entity_spans(tags):
        parts.append("".join(chars[position:start]))
        parts.append(f"[{''.join(chars[start:end])}:{kind}]")
        position = end
    parts.append("".join(chars[position:]))
    return "".join(parts)


def prompt_items(records: list[dict]) -> list[PromptItem]:
    return [
        PromptItem(
            key=r["guid"],
            fields={"sentence": "".join(r["chars"])},
            answer=marked_sentence(r["chars"], r["tags"]),
        )
        for r in records
    ]


def _brackets(text: str) -> int:
    return text.count("[") + text.count("]")


def read_tags(sentence: str, body: str) -> list[str] | Ungrounded | None:
    """One tag per character of `sentence` from a marked answer; None if it is not one line of
    well-formed marks, `Ungrounded` if its plain text is not the sentence."""
    if not body or "\n" in body:
        return None
    plain, spans, position = [], [], 0
    for mark in _MARK.finditer(body):
        plain.append(body[position : mark.start()])
        start = sum(map(len, plain))
        plain.append(mark.group(1))
        spans.append((start, start + len(mark.group(1)), mark.group(2)))
        position = mark.end()
    plain.append(body[position:])
    copy = "".join(plain)
    if _brackets(copy) > _brackets(sentence):
        return None
    if copy != sentence.strip():
        return Ungrounded("the copy changes the sentence")
    offset = len(sentence) - len(sentence.lstrip())
    tags = ["O"] * len(sentence)
    for start, end, kind in spans:
        tags[offset + start] = f"B-{kind}"
        tags[offset + start + 1 : offset + end] = [f"I-{kind}"] * (end - start - 1)
    return tags


def _line(item: PromptItem, tags: list[str]) -> dict:
    return {"guid": item.key, "tags": tags, "boundary": list(NO_BOUNDARY)}


def parse_answer(item: PromptItem, body: str) -> dict | Ungrounded | None:
    tags = read_tags(item.fields["sentence"], body)
    return tags if tags is None or isinstance(tags, Ungrounded) else _line(item, tags)


def fallback_prediction(item: PromptItem) -> dict:
    """Every character tagged wrong: O inside a gold entity, a stray I- tag elsewhere (which
    starts no entity, so the fallback predicts none)."""
    gold = read_tags(item.fields["sentence"], item.answer.strip())  # as a body is read
    return _line(item, ["O" if tag != "O" else _STRAY for tag in gold])
