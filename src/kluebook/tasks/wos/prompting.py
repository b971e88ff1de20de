"""WoS prompted: the dialogue state after each user turn (see book/prompting.md).

One item per user turn: the dialogue up to that turn, and the cumulative state as
`domain-slot=value` pairs joined by `; ` (one line), or exactly `없음` for an empty state. It is
read strictly: every pair has a `domain-slot` name (one `-`, no space around it, both parts
non-empty), then `=`, then a non-empty value (which may contain `-` or `=`, never `;`); a slot
named twice, an empty pair or a second line makes the answer unreadable. Pairs become the
official `domain-slot-value` strings; names and values are not checked against the ontology
(the real dev set uses values the ontology does not list). The instruction lists the slots of
the official ontology (the smoke data's generated dialogues use other domains, which only
demonstrations show).
"""

from kluebook.tasks.prompt_answers import (
    NOTHING,
    UNREADABLE,
    answer_body,
    own_template,
    refuse_ranking,
)
from kluebook.tasks.prompt_items import PromptItem

from .data import split_state_item

TEMPLATE = own_template(__file__)
SPEAKERS = {"user": "사용자", "sys": "시스템"}
SEPARATOR = "; "

rank_prediction = refuse_ranking


def written_state(state: list[str]) -> str:
    """A state in the answer format."""
    pairs = ("=".join(split_state_item(item)) for item in state)
    return SEPARATOR.join(pairs) or NOTHING


def prompt_items(records: list[dict]) -> list[PromptItem]:
    items = []
    for record in records:
        lines, user_turns = [], 0
        for turn in record["dialogue"]:
            lines.append(f"{SPEAKERS[turn['role']]}: {turn['text']}")
            if turn["role"] == "user":
                items.append(
                    PromptItem(
                        key=(record["guid"], user_turns),
                        fields={"dialogue": "\n".join(lines)},
                        answer=written_state(turn["state"]),
                    )
                )
                user_turns += 1
    return items


def _is_slot_name(name: str) -> bool:
    domain, dash, slot = name.partition("-")
    parts_ok = all(part and part == part.strip() for part in (domain, slot))
    return bool(dash) and parts_ok and "-" not in slot


def read_state(text: str) -> list[str] | None:
    """The `domain-slot-value` strings of a generated state, or None if it is unreadable."""
    body = answer_body(text, TEMPLATE.answer_prefix)
    if body == NOTHING:
        return []
    if not body or "\n" in body:
        return None
    state, named = [], set()
    for pair in body.split(";"):
        name, equals, value = (part.strip() for part in pair.partition("="))
        if not (equals and value and _is_slot_name(name)) or name in named:
            return None
        named.add(name)
        state.append(f"{name}-{value}")
    return state


def parse_answer(item: PromptItem, text: str) -> dict | None:
    state = read_state(text)
    if state is None:
        return None
    guid, turn = item.key
    return {"guid": guid, "turn": turn, "state": state}


def fallback_prediction(item: PromptItem) -> dict:
    """An empty state where the gold has slots, a slot the gold lacks where it has none."""
    guid, turn = item.key
    return {"guid": guid, "turn": turn, "state": [UNREADABLE] if item.answer == NOTHING else []}
