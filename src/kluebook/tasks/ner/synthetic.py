"""Generated NER sentences: entities drawn from small gazetteers and number patterns, placed in
sentence templates whose context words announce their type (씨, 대표 after a person; 에서 after
a place; 관계자 after an organisation...). A few entities are left untagged as label noise."""

import random
import re

from kluebook.data.hangul import final_consonant
from kluebook.data.smoke_splits import numbered_splits

from .data import markup

SURNAMES = ("김", "이", "박", "최", "정", "강", "조", "윤", "장", "임", "한", "신", "서", "권")
GIVEN_NAMES = (
    *("민준", "서연", "지훈", "유진", "하늘", "도윤", "서아", "현우"),
    *("수빈", "지민", "예준", "채원", "시우", "하은", "준서", "다인"),
)
PLACES = (
    *("서울", "부산", "대구", "인천", "광주", "대전", "울산", "제주도", "강원도", "춘천"),
    *("전주", "여수", "경주", "포항", "청주", "뉴욕", "파리", "도쿄", "베를린", "하노이"),
)
ORGANISATIONS = (
    *("한빛전자", "미래은행", "푸른대학교", "나래항공", "새봄제약", "한결건설", "누리통신"),
    *("바다일보", "초록시민연대", "하늘소프트", "별빛기획", "국립과학원", "시립미술관"),
)
RELATIVE_DAYS = ("어제", "오늘", "내일", "지난해", "올해", "내년", "주말")
TIME_WORDS = ("새벽", "아침", "정오", "저녁", "밤")

# {PS} person, {LC} place, {OG} organisation, {DT} date, {TI} time, {QT:unit} quantity;
# a particle after a slot is written `(받침 form/no-받침 form)`, chosen by the entity's last sound.
TEMPLATES = (
    "{PS}(은/는) {DT} {LC}에서 {QT:명}의 관객 앞에 섰다.",
    "{OG}(은/는) {DT} {TI}에 새 계획을 발표했다.",
    "{LC}에 사는 {PS} 씨는 책 {QT:권}(을/를) 기부했다.",
    "{DT} {TI}께 {LC} 일대에서 큰 행사가 열렸다.",
    "{OG} 관계자는 {PS} 대표가 {DT} {LC}(을/를) 방문한다고 밝혔다.",
    "{PS} 감독이 이끄는 {OG}(은/는) {QT:점} 차이로 이겼다.",
    "이번 행사에는 {QT:명}(이/가) 참가했으며 {TI}부터 시작된다.",
    "{OG}에 따르면 {LC}의 방문객은 {QT:명}(으로/로) 늘었다.",
    "{PS}(이/가) 쓴 책이 {DT} 출간됐다.",
    "{TI}에 만난 {PS}(과/와) {PS}(은/는) {OG} 이야기를 나눴다.",
    "{PS} 의원은 {DT} {OG}(을/를) 찾아 {QT:억 원}의 지원을 약속했다.",
    "{LC} 공항에서 {TI}에 출발한 비행기가 {QT:킬로미터}(을/를) 날아갔다.",
    "{LC}의 낮 기온은 {QT:도}까지 오르겠다.",
    "그는 조용히 창밖을 바라보았다.",
    "회의는 예정보다 길어졌고 결론은 나지 않았다.",
)
SLOT = re.compile(r"\{(PS|LC|OG|DT|TI|QT)(?::([^}]+))?\}(?:\((\w+)/(\w+)\))?")
QUANTITY_RANGES = {"점": (1, 30), "도": (5, 38)}
UNTAGGED_RATE = 0.03
# The guid of the record at `index` of a split, as the official files number them.
GUID = "klue-ner-v1_{split}_{index:05d}-kluebook"


def generate(seed: int = 0, train_size: int = 1200, dev_size: int = 300) -> dict[str, list[dict]]:
    """Train and dev splits in the official NER layout."""
    return numbered_splits(seed, GUID, _record, train_size, dev_size)


def _date(rng: random.Random) -> str:
    year, month, day = rng.randint(1990, 2030), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice(
        [
            f"{year}년",
            f"{year}년 {month}월 {day}일",
            f"{month}월 {day}일",
            rng.choice(RELATIVE_DAYS),
        ]
    )


def _time(rng: random.Random) -> str:
    hour, minute = rng.randint(1, 12), rng.choice([10, 20, 30, 40, 50])
    return rng.choice(
        [
            f"오전 {hour}시",
            f"오후 {hour}시 {minute}분",
            f"{hour}시 {minute}분",
            rng.choice(TIME_WORDS),
        ]
    )


ENTITY_MAKERS = {
    "PS": lambda rng: rng.choice(SURNAMES) + rng.choice(GIVEN_NAMES),
    "LC": lambda rng: rng.choice(PLACES),
    "OG": lambda rng: rng.choice(ORGANISATIONS),
    "DT": _date,
    "TI": _time,
}


def _entity(rng: random.Random, kind: str, unit: str | None) -> str:
    if kind == "QT":
        low, high = QUANTITY_RANGES.get(unit, (2, 3000))
        return f"{rng.randint(low, high)}{unit}"
    return ENTITY_MAKERS[kind](rng)


RIEUL_FINAL = 8  # index of ㄹ among the final consonants of a Hangul syllable


def _particle(word: str, with_final: str, without_final: str) -> str:
    """The particle form that fits the last syllable of `word` (entities end in Hangul)."""
    final = final_consonant(word)
    if final == 0 or (with_final == "으로" and final == RIEUL_FINAL):
        return without_final
    return with_final


def sentence(rng: random.Random, template: str) -> tuple[list[str], list[str]]:
    """Characters and tags of one sentence made from `template`."""
    chars: list[str] = []
    tags: list[str] = []
    position = 0
    for match in SLOT.finditer(template):
        plain = template[position : match.start()]
        chars += plain
        tags += ["O"] * len(plain)
        kind, unit, with_final, without_final = match.groups()
        entity = _entity(rng, kind, unit)
        untagged = rng.random() < UNTAGGED_RATE
        chars += entity
        tags += (
            ["O"] * len(entity) if untagged else [f"B-{kind}"] + [f"I-{kind}"] * (len(entity) - 1)
        )
        if with_final:
            particle = _particle(entity, with_final, without_final)
            chars += particle
            tags += ["O"] * len(particle)
        position = match.end()
    rest = template[position:]
    return chars + list(rest), tags + ["O"] * len(rest)


def _record(rng: random.Random, split: str) -> dict:
    chars, tags = sentence(rng, rng.choice(TEMPLATES))
    return {"sentence": markup(chars, tags), "chars": chars, "tags": tags}
