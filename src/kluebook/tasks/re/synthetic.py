"""Generated KLUE-RE-style examples. Each relation has its own sentence pattern (the verb or
noun that states it) and entity types, and no_relation sentences mention both entities without
relating them; subject and object appear in either order. A few relation sentences are
labelled no_relation, as an annotator might miss them. Every relation occurs in every split."""

import random
import re

from kluebook.data.hangul import has_final_consonant
from kluebook.data.smoke_splits import train_and_dev

from .data import RELATIONS

ENTITIES = {
    "PER": (
        "김민준",
        "이서연",
        "박지호",
        "최유나",
        "정하늘",
        "강도윤",
        "윤서아",
        "임태현",
        "한지우",
        "송하준",
    ),
    "ORG": (
        "한빛전자",
        "푸른은행",
        "새솔대학교",
        "미래연합",
        "다온제약",
        "누리방송",
        "한결건설",
        "바른일보",
    ),
    "LOC": ("부산", "대구", "광주", "제주", "춘천", "전주", "파리", "런던", "도쿄"),
    "DAT": ("1987년", "2003년 5월", "1999년 3월 2일", "2015년", "1962년 7월", "2010년 겨울"),
    "NOH": ("300명", "1,200명", "45명", "5천 명", "800여 명"),
    "TITLE": ("사장", "교수", "감독", "대표", "기자", "의원"),
    "PRODUCT": ("누리폰", "바람의 길", "하늘 세제", "별빛 노트북", "푸른 약"),
    "BELIEF": ("불교", "천주교", "개신교", "진보 정당", "보수 정당"),
}
# Object pools that are typed POH (other proper nouns) in the data.
POH_POOLS = ("TITLE", "PRODUCT", "BELIEF")

# relation -> (subject pool, object pool, patterns). In a pattern, {S} and {O} are the entities,
# optionally followed by |particle-after-consonant/particle-after-vowel or |fixed-particle.
PATTERNS = {
    "org:dissolved": ("ORG", "DAT", ["{S|은/는} {O|에} 해산되었다."]),
    "org:founded": ("ORG", "DAT", ["{S|은/는} {O|에} 설립되었다."]),
    "org:place_of_headquarters": ("ORG", "LOC", ["{S|은/는} {O|에} 본사를 두고 있다."]),
    "org:alternate_names": ("ORG", "ORG", ["{S}, 줄여서 {O|은/는} 새 계획을 내놓았다."]),
    "org:member_of": ("ORG", "ORG", ["{S|은/는} 올해 {O|에} 가입했다."]),
    "org:members": ("ORG", "ORG", ["{S|은/는} 회원사로 {O|을/를} 받아들였다."]),
    "org:political/religious_affiliation": ("ORG", "BELIEF", ["{S|은/는} {O} 계열의 단체이다."]),
    "org:product": ("ORG", "PRODUCT", ["{S|은/는} 신제품 {O|을/를} 출시했다."]),
    "org:founded_by": ("ORG", "PER", ["{O|이/가} 창업한 {S|은/는} 크게 성장했다."]),
    "org:top_members/employees": ("ORG", "PER", ["{S}의 대표 {O|은/는} 기자회견을 열었다."]),
    "org:number_of_employees/members": ("ORG", "NOH", ["{S}의 직원 수는 {O}에 이른다."]),
    "per:date_of_birth": ("PER", "DAT", ["{S|은/는} {O|에} 태어났다."]),
    "per:date_of_death": ("PER", "DAT", ["{S|은/는} {O|에} 세상을 떠났다."]),
    "per:place_of_birth": ("PER", "LOC", ["{S|은/는} {O|에서} 태어났다."]),
    "per:place_of_death": ("PER", "LOC", ["{S|은/는} {O|에서} 숨졌다."]),
    "per:place_of_residence": ("PER", "LOC", ["{S|은/는} 현재 {O|에} 살고 있다."]),
    "per:origin": ("PER", "LOC", ["{O} 출신의 {S|은/는} 고향을 찾았다."]),
    "per:employee_of": ("PER", "ORG", ["{S|은/는} {O|에서} 일하고 있다."]),
    "per:schools_attended": ("PER", "ORG", ["{S|은/는} {O|을/를} 졸업했다."]),
    "per:alternate_names": ("PER", "PER", ["{S|은/는} {O|이라는/라는} 예명으로 활동했다."]),
    "per:parents": ("PER", "PER", ["{S}의 아버지 {O|은/는} 교사였다."]),
    "per:children": ("PER", "PER", ["{S}의 아들 {O|은/는} 배우가 되었다."]),
    "per:siblings": ("PER", "PER", ["{S|은/는} 형 {O|과/와} 함께 자랐다."]),
    "per:spouse": ("PER", "PER", ["{S|은/는} {O|과/와} 결혼했다."]),
    "per:other_family": ("PER", "PER", ["{S}의 사촌 {O|이/가} 찾아왔다."]),
    "per:colleagues": ("PER", "PER", ["{S|은/는} 동료 {O|과/와} 함께 연구했다."]),
    "per:product": ("PER", "PRODUCT", ["{S|은/는} 새 작품 {O|을/를} 펴냈다."]),
    "per:religion": ("PER", "BELIEF", ["{S|은/는} 독실한 {O} 신자이다."]),
    "per:title": ("PER", "TITLE", ["{O} {S|은/는} 회의에 참석했다."]),
}
NO_RELATION_PATTERNS = (
    "{S|이/가} 발표한 자료에 {O|이/가} 언급되었다.",
    "{O}에 관한 기사를 {S|이/가} 공유했다.",
    "오늘 뉴스에서 {S|과/와} {O|이/가} 잇따라 소개되었다.",
)
NO_RELATION_RATE = 0.3
MISSED_RELATION_RATE = 0.04
SOURCES = ("wikipedia", "wikitree", "policy_briefing")
_SLOT = re.compile(r"\{([SO])(?:\|([^}]*))?\}")


def _particle(word: str, spec: str) -> str:
    if "/" not in spec:
        return spec
    after_consonant, after_vowel = spec.split("/")
    return after_consonant if has_final_consonant(word) else after_vowel


def render(pattern: str, subject: str, obj: str) -> tuple[str, tuple[int, int], tuple[int, int]]:
    """The sentence and the inclusive (start, end) character spans of subject and object."""
    words = {"S": subject, "O": obj}
    parts, spans, length, last = [], {}, 0, 0
    for match in _SLOT.finditer(pattern):
        role, particle = match.group(1), match.group(2) or ""
        word = words[role]
        text = pattern[last : match.start()]
        start = length + len(text)
        spans[role] = (start, start + len(word) - 1)
        piece = text + word + _particle(word, particle)
        parts.append(piece)
        length += len(piece)
        last = match.end()
    parts.append(pattern[last:])
    return "".join(parts), spans["S"], spans["O"]


def _entity(word: str, span: tuple[int, int], pool: str) -> dict:
    entity_type = "POH" if pool in POH_POOLS else pool
    return {"word": word, "start_idx": span[0], "end_idx": span[1], "type": entity_type}


def example(rng: random.Random, relation: str) -> dict:
    """One example whose sentence states `relation` (no guid)."""
    if relation == "no_relation":
        subject_pool = rng.choice(["PER", "ORG"])
        object_pool = rng.choice(list(ENTITIES))
        pattern = rng.choice(NO_RELATION_PATTERNS)
    else:
        subject_pool, object_pool, patterns = PATTERNS[relation]
        pattern = rng.choice(patterns)
    subject = rng.choice(ENTITIES[subject_pool])
    obj = rng.choice([w for w in ENTITIES[object_pool] if w != subject])
    sentence, subject_span, object_span = render(pattern, subject, obj)
    return {
        "sentence": sentence,
        "subject_entity": _entity(subject, subject_span, subject_pool),
        "object_entity": _entity(obj, object_span, object_pool),
        "label": relation,
        "source": rng.choice(SOURCES),
    }


def _split(rng: random.Random, split: str, size: int) -> list[dict]:
    examples = [example(rng, relation) for relation in RELATIONS]
    for _ in range(size - len(RELATIONS)):
        no_relation = rng.random() < NO_RELATION_RATE
        relation = "no_relation" if no_relation else rng.choice(RELATIONS[1:])
        generated = example(rng, relation)
        if rng.random() < MISSED_RELATION_RATE:
            generated["label"] = "no_relation"
        examples.append(generated)
    rng.shuffle(examples)
    return [{"guid": f"klue-re-v1_{split}_{i:05d}", **e} for i, e in enumerate(examples)]


def generate(seed: int = 0, train_size: int = 1500, dev_size: int = 400) -> dict[str, object]:
    """Train and dev splits in the official KLUE-RE layout, and the relation list."""
    splits = train_and_dev(seed, _split, train_size, dev_size)
    return {**splits, "relations": {"relations": list(RELATIONS)}}
