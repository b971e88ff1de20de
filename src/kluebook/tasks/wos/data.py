"""WoS (Wizard of Seoul): dialogue state tracking (see README.md here).

A record is one dialogue {guid, domains, dialogue: [{role, text, state}]}; only user turns carry a
state, the cumulative list of `domain-slot-value` strings after that turn. Examples are user turns,
keyed by (dialogue guid, number of the user turn counted from 0). States are not checked against
the ontology: the real dev set uses values the ontology does not list.
"""

from collections.abc import Iterable
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_json, write_json
from kluebook.data.klue_json import read_record_list, write_record_list
from kluebook.scoring.switches import NO_SWITCHES, Switches
from kluebook.tasks.interface import LineProblem

from .metric import joint_goal_accuracy, pooled_slot_f1, slot_f1

ROLES = ("user", "sys")
# The values every ontology slot starts with; gold states use "dontcare" but never "none".
NONE, DONTCARE = "none", "dontcare"


def split_state_item(item: str) -> tuple[str, str]:
    """("domain-slot", value) of a `domain-slot-value` string; the value may itself contain `-`."""
    parts = item.split("-", 2)
    if len(parts) != 3 or not parts[0] or not parts[1]:
        raise ValueError(f"not a domain-slot-value string: {item!r}")
    return f"{parts[0]}-{parts[1]}", parts[2]


def read_official(path: str | Path) -> list[dict]:
    """Dialogues of an official WoS file, validated, in the official shape."""
    records = []
    for item in read_record_list(path, "WoS", "dialogues", ("guid", "domains", "dialogue")):
        guid = item["guid"]
        if not isinstance(item["dialogue"], list):
            raise KluebookError(f"{path}: {guid}: dialogue must be a list of turns")
        turns = [_turn(path, guid, turn) for turn in item["dialogue"]]
        records.append({"guid": guid, "domains": list(item["domains"]), "dialogue": turns})
    return records


def _turn(path: str | Path, guid: str, turn: object) -> dict:
    if not isinstance(turn, dict) or turn.get("role") not in ROLES:
        raise KluebookError(f"{path}: {guid}: a turn lacks a role of user or sys")
    if not isinstance(turn.get("text"), str):
        raise KluebookError(f"{path}: {guid}: a turn lacks its text")
    if turn["role"] == "sys":
        return {"role": "sys", "text": turn["text"]}
    state = turn.get("state")
    if not isinstance(state, list):
        raise KluebookError(f"{path}: {guid}: a user turn lacks its state list")
    for item in state:
        try:
            split_state_item(item)
        except (ValueError, AttributeError) as error:
            raise KluebookError(f"{path}: {guid}: bad state entry {item!r}") from error
    return {"role": "user", "text": turn["text"], "state": list(state)}


write_official = write_record_list  # dialogues in the official layout


def read_ontology(path: str | Path) -> dict[str, list[str]]:
    """An ontology file: {"domain-slot": [values, starting with none and dontcare]}."""
    data = read_json(path)
    if not isinstance(data, dict) or not data:
        raise KluebookError(f"{path}: not a WoS ontology (expected a JSON object of slots)")
    for slot, values in data.items():
        domain, _, name = slot.partition("-")
        if not domain or not name or "-" in name:
            raise KluebookError(f"{path}: not a WoS ontology (bad slot name {slot!r})")
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise KluebookError(f"{path}: {slot}: values must be a list of strings")
    return {slot: list(values) for slot, values in data.items()}


def write_ontology(ontology: dict[str, list[str]], path: str | Path) -> None:
    """Write an ontology in the official layout."""
    write_json(path, {slot: list(values) for slot, values in ontology.items()})


def from_hub(rows: Iterable[dict]) -> list[dict]:
    """Hub rows as official records (the hub gives system turns an empty state; dropped here)."""
    records = []
    for row in rows:
        turns = row["dialogue"]
        if isinstance(turns, dict):  # column layout {role: [...], text: [...], state: [...]}
            turns = [
                dict(zip(turns, values, strict=True))
                for values in zip(*turns.values(), strict=True)
            ]
        dialogue = [
            {"role": t["role"], "text": t["text"], "state": list(t["state"])}
            if t["role"] == "user"
            else {"role": t["role"], "text": t["text"]}
            for t in turns
        ]
        records.append({"guid": row["guid"], "domains": list(row["domains"]), "dialogue": dialogue})
    return records


def user_states(record: dict) -> list[list[str]]:
    """The gold state of each user turn of a dialogue, in order."""
    return [turn["state"] for turn in record["dialogue"] if turn["role"] == "user"]


def slot_names(records: Iterable[dict]) -> list[str]:
    """Sorted domain-slots seen in the states of some dialogues (the baseline's slot list)."""
    return sorted(
        {
            split_state_item(item)[0]
            for record in records
            for state in user_states(record)
            for item in state
        }
    )


def gold_keys(records: list[dict]) -> list[tuple[str, int]]:
    return [(r["guid"], turn) for r in records for turn in range(len(user_states(r)))]


def prediction_key(row: dict) -> tuple[str, int]:
    """(guid, turn); KeyError or TypeError (which the scorer reports by line) if malformed."""
    guid, turn = row["guid"], row["turn"]
    if not isinstance(turn, int) or isinstance(turn, bool):
        raise TypeError("'turn' as an integer")
    return guid, turn


def score(records: list[dict], predictions: dict, switches: Switches = NO_SWITCHES) -> dict:
    """Official JGA and slot F1, and the pooled slot F1, of {(guid, turn): {"state": [...]}}
    predictions over user turns."""
    gold, predicted = [], []
    for record in records:
        for turn, state in enumerate(user_states(record)):
            predicted_state = predictions[record["guid"], turn].get("state")
            if not isinstance(predicted_state, list) or not all(
                isinstance(item, str) for item in predicted_state
            ):
                raise KluebookError(
                    f"{record['guid']} turn {turn}: state must be a list of strings"
                )
            gold.append(state)
            predicted.append(predicted_state)
    return {
        "joint_goal_accuracy": joint_goal_accuracy(gold, predicted),
        "slot_f1": slot_f1(gold, predicted),
        "slot_f1_pooled": pooled_slot_f1(gold, predicted),
    }


def gold_predictions(records: list[dict], switches: Switches = NO_SWITCHES) -> list[dict]:
    """Each user turn's gold state as its predictions line (the format's worked example)."""
    return [
        {"guid": r["guid"], "turn": turn, "state": list(state)}
        for r in records
        for turn, state in enumerate(user_states(r))
    ]


def check_line(record: dict, row: dict) -> LineProblem | None:
    """A line's state: a list of strings (compared whole with the gold's, so a string that is
    no `domain-slot-value` is a wrong slot, not a malformed line)."""
    state = row.get("state")
    if isinstance(state, list) and all(isinstance(item, str) for item in state):
        return None
    return LineProblem("state that is not a list of strings", repr(state)[:40])
