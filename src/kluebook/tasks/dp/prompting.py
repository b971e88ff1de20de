"""KLUE-DP prompted: a head and a relation for each eojeol (see book/prompting.md).

The query numbers the eojeols from 1. The answer has one line per eojeol, in order:
`index<TAB>head<TAB>relation` (runs of spaces also separate the fields), where `index` is the
eojeol's number, `head` the number of its head or 0 for the root, and `relation` one of the
official dependency labels. It is read strictly: exactly one line per eojeol, the numbers in
order, a known label; anything else is unreadable. An answer that reads but gives a head that is
no eojeol of the sentence (a number above their count) is ungrounded, scored as the fallback.
"""

import re

from kluebook.tasks.prompt_answers import refuse_ranking
from kluebook.tasks.prompt_items import PromptItem, Ungrounded

from .metric import DEPRELS

_NUMBER = re.compile(r"[0-9]+")

rank_prediction = refuse_ranking


def prompt_items(records: list[dict]) -> list[PromptItem]:
    return [
        PromptItem(
            key=r["guid"],
            fields={
                "sentence": r["sentence"],
                "words": "\n".join(f"{i}\t{w}" for i, w in enumerate(r["word_forms"], start=1)),
            },
            answer="\n".join(
                f"{i}\t{head}\t{deprel}"
                for i, (head, deprel) in enumerate(zip(r["heads"], r["deprels"], strict=True), 1)
            ),
        )
        for r in records
    ]


def read_arcs(size: int, body: str) -> tuple[list[int], list[str]] | Ungrounded | None:
    """(heads, relations) of a sentence of `size` eojeols from an answer; None if it does not
    read, `Ungrounded` if a head is no eojeol of the sentence."""
    lines = body.splitlines()
    if len(lines) != size:
        return None
    heads, relations = [], []
    for index, line in enumerate(lines, start=1):
        fields = line.split()
        if len(fields) != 3 or fields[0] != str(index) or not _NUMBER.fullmatch(fields[1]):
            return None
        head, relation = int(fields[1]), fields[2]
        if relation not in DEPRELS:
            return None
        heads.append(head)
        relations.append(relation)
    if max(heads) > size:
        return Ungrounded(f"a head above the sentence's {size} eojeols")
    return heads, relations


def _size(item: PromptItem) -> int:
    return len(item.fields["words"].splitlines())


def parse_answer(item: PromptItem, body: str) -> dict | Ungrounded | None:
    arcs = read_arcs(_size(item), body)
    if arcs is None or isinstance(arcs, Ungrounded):
        return arcs
    return {"guid": item.key, "heads": arcs[0], "deprels": arcs[1]}


def fallback_prediction(item: PromptItem) -> dict:
    """Every head wrong (the root where the gold head is a word, else the first word), which
    makes every labelled attachment wrong too."""
    gold_heads, _ = read_arcs(_size(item), item.answer)
    return {
        "guid": item.key,
        "heads": [1 if head == 0 else 0 for head in gold_heads],
        "deprels": [DEPRELS[0]] * len(gold_heads),
    }
