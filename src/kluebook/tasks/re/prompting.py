"""KLUE-RE prompted: the 30 relations, named in Korean, ranked by log-likelihood
(see book/prompting.md).

The predicted relation is the most likely one; `probs` are the probabilities of all 30 (the
softmax of their log-likelihoods) in the order of relation_list.json, from which the official
scoring computes AUPRC. A generated answer is read as one Korean relation name written exactly;
its `probs` put all the weight on it.
"""

from kluebook.tasks.prompt_answers import (
    choice_probabilities,
    most_likely,
    other_than,
    read_choice,
)
from kluebook.tasks.prompt_items import PromptItem

from .data import RELATIONS

# The Korean name of each relation, in the order of RELATIONS.
CHOICES = (
    "관계 없음",
    "단체:해산일",
    "단체:설립일",
    "단체:본부 소재지",
    "단체:별칭",
    "단체:상위 단체",
    "단체:하위 단체",
    "단체:정치·종교 성향",
    "단체:제품",
    "단체:설립자",
    "단체:주요 구성원",
    "단체:구성원 수",
    "인물:출생일",
    "인물:사망일",
    "인물:출생지",
    "인물:사망지",
    "인물:거주지",
    "인물:출신",
    "인물:소속",
    "인물:출신 학교",
    "인물:별칭",
    "인물:부모",
    "인물:자녀",
    "인물:형제자매",
    "인물:배우자",
    "인물:기타 가족",
    "인물:동료",
    "인물:제품",
    "인물:종교",
    "인물:직위",
)
# The Korean name of each entity type of the official data.
ENTITY_TYPE_NAMES = {
    "PER": "인물",
    "ORG": "단체",
    "LOC": "장소",
    "DAT": "날짜",
    "POH": "기타",
    "NOH": "수량",
}


def _type_name(entity: dict) -> str:
    return ENTITY_TYPE_NAMES.get(entity["type"], entity["type"])


def prompt_items(records: list[dict]) -> list[PromptItem]:
    return [
        PromptItem(
            key=r["guid"],
            fields={
                "sentence": r["sentence"],
                "subject": r["subject_entity"]["word"],
                "subject_type": _type_name(r["subject_entity"]),
                "object": r["object_entity"]["word"],
                "object_type": _type_name(r["object_entity"]),
            },
            answer=CHOICES[RELATIONS.index(r["label"])],
            choices=CHOICES,
        )
        for r in records
    ]


def _line(key: str, probabilities: list[float]) -> dict:
    return {"guid": key, "label": RELATIONS[most_likely(probabilities)], "probs": probabilities}


def _certain(key: str, relation: str) -> dict:
    return _line(key, [float(name == relation) for name in RELATIONS])


def parse_answer(item: PromptItem, body: str) -> dict | None:
    index = read_choice(body, item.choices)
    return None if index is None else _certain(item.key, RELATIONS[index])


def rank_prediction(item: PromptItem, logprobs: dict[str, float]) -> dict:
    return _line(item.key, choice_probabilities(item.choices, logprobs))


def fallback_prediction(item: PromptItem) -> dict:
    """A relation other than the gold one, with all the weight on it."""
    gold = RELATIONS[CHOICES.index(item.answer)]
    return _certain(item.key, other_than(RELATIONS, gold))
