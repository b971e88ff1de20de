"""WoS prompted: the dialogue state after each user turn (see book/prompting.md).

One item per user turn: the dialogue up to that turn, and the cumulative state as
`domain-slot=value` pairs joined by `; ` (one line), or exactly `없음` for an empty state. It is
read strictly: every pair has a `domain-slot` name (one `-`, no space around it, both parts
non-empty), then `=`, then a non-empty value (which may contain `-` or `=`, never `;`); a slot
named twice, an empty pair or a second line makes the answer unreadable. Pairs become the
official `domain-slot-value` strings. A state that reads but gives a slot a value no gold state
of the split gives it (the split's own ontology: the official ontology.json lists fewer values
than the real dev states use) is ungrounded: counted, and scored as it is. The instruction lists
the slots of the official ontology (the smoke data's generated dialogues use other domains,
which only demonstrations show).
"""

from kluebook.tasks.prompt_answers import (
    NOTHING,
    UNREADABLE,
    refuse_ranking,
)
from kluebook.tasks.prompt_items import PromptItem, Ungrounded

from .data import split_state_item

SPEAKERS = {"user": "사용자", "sys": "시스템"}
SEPARATOR = "; "

rank_prediction = refuse_ranking


def written_state(state: list[str]) -> str:
    """A state in the answer format."""
    pairs = ("=".join(split_state_item(item)) for item in state)
    return SEPARATOR.join(pairs) or NOTHING


def prompt_items(records: list[dict]) -> list[PromptItem]:
    items = []
    ontology = frozenset(
        pair
        for record in records
        for turn in record["dialogue"]
        if turn["role"] == "user"
        for pair in turn["state"]
    )
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
                        grounds=ontology,
                    )
                )
                user_turns += 1
    return items


def _is_slot_name(name: str) -> bool:
    domain, dash, slot = name.partition("-")
    parts_ok = all(part and part == part.strip() for part in (domain, slot))
    return bool(dash) and parts_ok and "-" not in slot


def read_state(body: str) -> list[str] | None:
    """The `domain-slot-value` strings of a state's answer body, or None if it is unreadable."""
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


def parse_answer(item: PromptItem, body: str) -> dict | Ungrounded | None:
    state = read_state(body)
    if state is None:
        return None
    guid, turn = item.key
    line = {"guid": guid, "turn": turn, "state": state}
    unknown = [pair for pair in state if pair not in item.grounds]
    if unknown:
        return Ungrounded(f"{len(unknown)} slot value(s) no state of the split gives", line)
    return line


def fallback_prediction(item: PromptItem) -> dict:
    """An empty state where the gold has slots, a slot the gold lacks where it has none."""
    guid, turn = item.key
    return {"guid": guid, "turn": turn, "state": [UNREADABLE] if item.answer == NOTHING else []}
