"""KLUE-RE: the relation between a marked subject and object entity (see README.md here).

Records: {guid, sentence, subject_entity, object_entity, label, source}, each entity
{word, start_idx, end_idx, type} with character offsets into `sentence`, end inclusive.
Model input: the sentence with entity markers (`mark_entities`), tokenized with the official
WordPiece fix-up (`tokenize_marked`).
"""

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_json, write_json
from kluebook.data.klue_json import read_record_list, write_record_list
from kluebook.scoring.metric_forms import F1, Auprc, class_counts
from kluebook.scoring.predicted_labels import predicted_labels
from kluebook.scoring.switches import NO_SWITCHES, Switches
from kluebook.tasks.interface import (
    HUB_COPY,
    LineProblem,
    class_label_problem,
    is_finite_number,
)

from .metric import NO_RELATION, auprc, micro_f1

# The order of the official relation_list.json (no_relation first); index = class id.
RELATIONS = (
    "no_relation",
    "org:dissolved",
    "org:founded",
    "org:place_of_headquarters",
    "org:alternate_names",
    "org:member_of",
    "org:members",
    "org:political/religious_affiliation",
    "org:product",
    "org:founded_by",
    "org:top_members/employees",
    "org:number_of_employees/members",
    "per:date_of_birth",
    "per:date_of_death",
    "per:place_of_birth",
    "per:place_of_death",
    "per:place_of_residence",
    "per:origin",
    "per:employee_of",
    "per:schools_attended",
    "per:alternate_names",
    "per:parents",
    "per:children",
    "per:siblings",
    "per:spouse",
    "per:other_family",
    "per:colleagues",
    "per:product",
    "per:religion",
    "per:title",
)
ENTITY_TYPES = ("PER", "ORG", "LOC", "DAT", "POH", "NOH")
SUBJECT_START, SUBJECT_END, OBJECT_START, OBJECT_END = "<subj>", "</subj>", "<obj>", "</obj>"
# Added to the tokenizer as special tokens (new embedding rows), in this order.
MARKERS = (SUBJECT_START, SUBJECT_END, OBJECT_START, OBJECT_END)
# Predicted probabilities may miss a sum of 1 by this much (rounding in the file).
PROBS_SUM_TOLERANCE = 1e-3
# The relations the item browser shows for each item, from its most probable down.
TOP_RELATIONS = 3


def read_relations(path: str | Path) -> tuple[str, ...]:
    """The relation list of an official relation_list.json ({"relations": [...]})."""
    data = read_json(path)
    relations = data.get("relations") if isinstance(data, dict) else None
    if not isinstance(relations, list) or not all(isinstance(r, str) for r in relations):
        raise KluebookError(f'{path}: not a relation list (expected {{"relations": [names]}})')
    return tuple(relations)


def write_relations(relations: Sequence[str], path: str | Path) -> None:
    """Write a relation list in the official relation_list.json layout."""
    write_json(path, {"relations": list(relations)})


def _entity(path: str | Path, guid: str, sentence: str, role: str, entity: object) -> dict:
    if not isinstance(entity, dict) or not {"word", "start_idx", "end_idx", "type"} <= (
        entity.keys()
    ):
        raise KluebookError(f"{path}: {guid}: {role} lacks word, start_idx, end_idx or type")
    start, end = entity["start_idx"], entity["end_idx"]
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end < len(sentence)):
        raise KluebookError(
            f"{path}: {guid}: {role} span {start!r}..{end!r} is not inside the sentence"
        )
    return {"word": entity["word"], "start_idx": start, "end_idx": end, "type": entity["type"]}


def read_official(path: str | Path) -> list[dict]:
    """Records of an official KLUE-RE file."""
    records = []
    fields = ("guid", "sentence", "subject_entity", "object_entity", "label")
    for item in read_record_list(path, "KLUE-RE", "examples", fields):
        guid, sentence = item["guid"], item["sentence"]
        if item["label"] not in RELATIONS:
            raise KluebookError(f"{path}: {guid}: unknown relation {item['label']!r}")
        records.append(
            {
                "guid": guid,
                "sentence": sentence,
                "subject_entity": _entity(
                    path, guid, sentence, "subject_entity", item["subject_entity"]
                ),
                "object_entity": _entity(
                    path, guid, sentence, "object_entity", item["object_entity"]
                ),
                "label": item["label"],
                "source": item.get("source"),
            }
        )
    return records


write_official = write_record_list  # the official layout, fields as given


def from_hub(rows: Iterable[dict]) -> list[dict]:
    """Hub rows (integer labels, same order as relation_list.json) as official records."""
    return [
        {
            "guid": r["guid"],
            "sentence": r["sentence"],
            "subject_entity": dict(r["subject_entity"]),
            "object_entity": dict(r["object_entity"]),
            "label": RELATIONS[r["label"]],
            "source": r["source"],
        }
        for r in rows
    ]


def _probs_problem(probs: object) -> LineProblem | None:
    """What is wrong with a line's `probs`, if anything: one finite non-negative number per
    relation (RELATIONS' order), summing to 1 within PROBS_SUM_TOLERANCE."""
    if not isinstance(probs, list) or len(probs) != len(RELATIONS):
        found = len(probs) if isinstance(probs, list) else type(probs).__name__
        return LineProblem(f"probs list of other than {len(RELATIONS)} numbers", str(found))
    bad = [p for p in probs if not (is_finite_number(p) and p >= 0)]
    if bad:
        return LineProblem("probs value that is negative or not a finite number", repr(bad[0]))
    if abs(sum(probs) - 1.0) > PROBS_SUM_TOLERANCE:
        return LineProblem("probs list not summing to 1", f"{sum(probs):.6g}")
    return None


def _probabilities(guid: str, probs: object) -> list[float]:
    problem = _probs_problem(probs)
    if problem is not None:
        raise KluebookError(f"{guid}: {problem.kind} ({problem.found})")
    return [float(p) for p in probs]


def top_answers(line: dict) -> list[tuple[str, float]]:
    """The `TOP_RELATIONS` most probable relations of a predictions line, best first."""
    probabilities = _probabilities(line.get("guid", ""), line.get("probs"))
    ranked = sorted(zip(RELATIONS, probabilities, strict=True), key=lambda pair: -pair[1])
    return ranked[:TOP_RELATIONS]


def score(records: list[dict], predictions: dict, switches: Switches = NO_SWITCHES) -> dict:
    """Official micro F1 and AUPRC of {guid: {"label": name, "probs": [30 floats]}} predictions.

    `auprc` is None when a relation has no gold example (undefined in the official code).
    """
    class_id = {name: index for index, name in enumerate(RELATIONS)}
    labels = predicted_labels(records, predictions, class_id, "relation")
    predicted = [class_id[label] for label in labels]
    probabilities = [
        _probabilities(r["guid"], predictions[r["guid"]].get("probs")) for r in records
    ]
    gold = [class_id[r["label"]] for r in records]
    return {
        "micro_f1": micro_f1(gold, predicted, num_classes=len(RELATIONS)),
        "auprc": auprc(gold, probabilities),
    }


def resampling_statistics(records: list[dict], predictions: dict[str, dict]) -> dict:
    """Per-sentence counts and probabilities, from which kluebook.scoring.bootstrap recomputes
    both."""
    class_id = {name: index for index, name in enumerate(RELATIONS)}
    gold = [class_id[r["label"]] for r in records]
    pred = [class_id[predictions[r["guid"]]["label"]] for r in records]
    probs = np.array([predictions[r["guid"]]["probs"] for r in records], dtype=float)
    positive = [c for c in range(len(RELATIONS)) if c != NO_RELATION]
    counts = class_counts(gold, pred, range(len(gold)), len(gold), positive)
    return {
        "micro_f1": F1(**counts, average="micro"),
        "auprc": Auprc(np.array(gold), probs),
    }


def mark_entities(record: dict) -> str:
    """The sentence with `<subj>…</subj>` and `<obj>…</obj>` around the entity spans.

    No spaces are added; either entity may come first. As in the official code, spans that
    overlap are marked in turn, the shared characters written inside both (the gap between them
    is empty); only identical spans are an error.
    """
    sentence = record["sentence"]
    subject, obj = record["subject_entity"], record["object_entity"]
    spans = [
        (subject["start_idx"], subject["end_idx"], SUBJECT_START, SUBJECT_END),
        (obj["start_idx"], obj["end_idx"], OBJECT_START, OBJECT_END),
    ]
    spans.sort()
    (first_start, first_end, *first_markers), (second_start, second_end, *second_markers) = spans
    if (first_start, first_end) == (second_start, second_end):
        raise KluebookError(f"{record['guid']}: subject and object have the same span")
    return "".join(
        [
            sentence[:first_start],
            first_markers[0],
            sentence[first_start : first_end + 1],
            first_markers[1],
            sentence[first_end + 1 : second_start],
            second_markers[0],
            sentence[second_start : second_end + 1],
            second_markers[1],
            sentence[second_end + 1 :],
        ]
    )


def _is_hangul_syllable(char: str) -> bool:
    return "가" <= char <= "힣"


def fix_marker_tokens(marked: str, tokens: list[str]) -> list[str]:
    """The official WordPiece fix-up: a Hangul word piece glued to the end of an
    entity (no space after a closing marker) becomes a `##` continuation piece.

    Like the official code, only a plain space after the marker counts as a word break. A
    marker that ends the text is left alone (the official code fails there).
    """
    fixed = list(tokens)
    for marker in (SUBJECT_END, OBJECT_END):
        if marker not in marked:
            raise ValueError(f"{marker} is not in the text: mark it with mark_entities")
        if marker not in fixed:
            raise ValueError(f"{marker} was not kept as one token: add MARKERS to the tokenizer")
        after = marked.find(marker) + len(marker)
        if after >= len(marked) or marked[after] == " ":
            continue
        position = fixed.index(marker) + 1
        if position < len(fixed):
            piece = fixed[position]
            if not piece.startswith("##") and _is_hangul_syllable(piece[0]):
                fixed[position] = "##" + piece
    return fixed


def add_marker_tokens(tokenizer) -> int:
    """Add the four entity markers to a tokenizer as special tokens; returns how many were new
    (resize the model's embeddings by that much)."""
    return tokenizer.add_special_tokens({"additional_special_tokens": list(MARKERS)})


def tokenize_marked(tokenizer, marked: str, max_length: int) -> list[int]:
    """Input ids `[CLS] … [SEP]` of a marked sentence for a WordPiece (BERT) tokenizer that has
    the four markers as special tokens; the fix-up applied, the tail cut to `max_length`.

    A continuation piece missing from the vocabulary becomes `[UNK]`, as in the official code.
    """
    tokens = fix_marker_tokens(marked, tokenizer.tokenize(marked))
    ids = tokenizer.convert_tokens_to_ids(tokens)[: max_length - 2]
    return [tokenizer.cls_token_id, *ids, tokenizer.sep_token_id]


def gold_predictions(records: list[dict], switches: Switches = NO_SWITCHES) -> list[dict]:
    """Each sentence's gold relation, with all probability on it, as its predictions line."""
    return [
        {
            "guid": r["guid"],
            "label": r["label"],
            "probs": [float(n == r["label"]) for n in RELATIONS],
        }
        for r in records
    ]


def check_line(record: dict, row: dict) -> LineProblem | None:
    """A line's relation (one of RELATIONS by name; the hub copy's ids, in the same order, are
    named as such) and its probabilities."""
    if type(row.get("label")) is int:
        numbered = f"{HUB_COPY} numbers them 0-{len(RELATIONS) - 1} in relation_list.json's order"
        return LineProblem("hub label id", repr(row["label"]), numbered)
    return class_label_problem(row, RELATIONS, RELATIONS) or _probs_problem(row.get("probs"))
