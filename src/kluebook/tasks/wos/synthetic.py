"""Generated WoS-style dialogues with their own small ontology (cafes, shows, car rental).

Users state what they want slot by slot, in words that name the value (or say it does not matter,
or ask for / rule out a yes-no feature); sometimes they change an earlier value or only greet.
States are cumulative, as in WoS. The ontology is written for this project in the official layout:
every value list starts with none and dontcare, yes-no slots list yes and no.
"""

import random

from .data import DONTCARE, NONE

# slot -> (values, how a user asks for a value, how a user says any value will do)
VALUE_SLOTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "카페-지역": (
        ("강남", "홍대", "성수", "잠실", "종로", "신촌"),
        ("{v}에 있는 카페를 찾고 있어요.", "{v} 근처면 좋겠어요."),
        "카페 지역은 어디든 상관없어요.",
    ),
    "카페-종류": (
        ("베이커리", "디저트 카페", "로스터리", "북카페", "브런치 카페"),
        ("분위기는 {v} 쪽이 좋아요.", "{v} 스타일로 알려 주세요."),
        "카페 종류는 아무거나 괜찮아요.",
    ),
    "카페-예약 인원": (
        tuple(str(n) for n in range(1, 9)),
        ("카페에는 {v}명이 갈 거예요.", "카페 자리는 {v}명으로 잡아 주세요."),
        "카페 인원은 아직 몰라서 상관없어요.",
    ),
    "공연-장르": (
        ("뮤지컬", "연극", "콘서트", "무용", "국악"),
        ("{v} 공연을 보고 싶어요.", "장르는 {v} 쪽으로 찾아 주세요."),
        "공연 장르는 아무거나 좋아요.",
    ),
    "공연-요일": (
        ("월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일"),
        ("{v}에 볼 수 있는 걸로요.", "공연은 {v} 저녁이 좋겠어요."),
        "공연 요일은 언제든 괜찮아요.",
    ),
    "공연-관람 인원": (
        tuple(str(n) for n in range(1, 7)),
        ("공연 표는 {v}장 필요해요.", "{v}명이 같이 볼 거예요."),
        "공연 인원은 상관없어요.",
    ),
    "공연-공연장": (
        ("별빛아트홀", "한결극장", "푸른소극장", "이음홀", "달빛무대"),
        ("{v}에서 하는 공연이면 좋겠어요.", "공연장은 {v} 쪽으로 부탁해요."),
        "공연장은 어디든 상관없어요.",
    ),
    "렌터카-차종": (
        ("경차", "소형차", "중형차", "승합차", "전기차"),
        ("차종은 {v} 부탁해요.", "{v} 한 대 빌리고 싶어요."),
        "차종은 아무거나 괜찮아요.",
    ),
    "렌터카-대여 장소": (
        ("서울역", "김포공항", "수원역", "인천공항", "대전역"),
        ("차는 {v}에서 받을게요.", "{v} 지점에서 빌릴게요."),
        "차 받는 곳은 상관없어요.",
    ),
    "렌터카-대여 시간": (
        ("09:00", "09:30", "10:00", "10:30", "13:00", "14:30", "18:00"),
        ("{v}에 차를 받고 싶어요.", "대여는 {v}부터 할게요."),
        "차 받는 시간은 아무 때나 괜찮아요.",
    ),
    "렌터카-대여 기간": (
        tuple(str(n) for n in range(1, 6)),
        ("{v}일 동안 쓸 거예요.", "대여 기간은 {v}일이에요."),
        "대여 기간은 아직 상관없어요.",
    ),
}
# slot -> (yes request, no request, any will do)
YES_NO_SLOTS: dict[str, tuple[str, str, str]] = {
    "카페-주차 가능": (
        "주차가 되는 카페여야 해요.",
        "주차 공간이 없는 카페로 해 주세요.",
        "카페 주차는 상관없어요.",
    ),
    "카페-반려동물 동반": (
        "강아지를 데려갈 수 있는 카페였으면 해요.",
        "반려동물이 못 들어오는 카페가 좋아요.",
        "반려동물은 상관없어요.",
    ),
    "공연-할인 가능": (
        "할인이 되는 공연이면 좋겠어요.",
        "할인 없는 정가 공연으로 할게요.",
        "공연 할인은 상관없어요.",
    ),
    "렌터카-보험 포함": (
        "보험이 포함된 차로 부탁해요.",
        "보험은 빼고 빌릴게요.",
        "보험은 있든 없든 괜찮아요.",
    ),
}
OPENINGS = {
    "카페": ("카페를 하나 추천받고 싶어요.", "갈 만한 카페가 있을까요?"),
    "공연": ("공연을 예매하려고 해요.", "볼 만한 공연을 찾고 있어요."),
    "렌터카": ("렌터카를 빌리려고 해요.", "차를 며칠 빌리고 싶어요."),
}
GREETINGS = ("안녕하세요.", "안녕하세요, 뭐 좀 물어볼게요.", "도움이 필요해요.")
SYSTEM_REPLIES = (
    "네, 조건에 맞는 곳을 찾아볼게요. 다른 조건도 있으신가요?",
    "알겠습니다. 더 필요한 것은 없으신가요?",
    "확인했습니다. 말씀하신 조건으로 두 곳이 있어요.",
    "네, 찾아보니 가능한 곳이 있습니다.",
)
CLOSING = "예약을 마쳤습니다. 이용해 주셔서 감사합니다."


def ontology() -> dict[str, list[str]]:
    """The generated data's ontology, in the official layout, slots sorted by name."""
    slots = {slot: [NONE, DONTCARE, *values] for slot, (values, _, _) in VALUE_SLOTS.items()}
    slots.update({slot: [NONE, DONTCARE, "yes", "no"] for slot in YES_NO_SLOTS})
    return dict(sorted(slots.items()))


def _request(rng: random.Random, slot: str) -> tuple[str, str]:
    """(utterance, value) of a user asking for one slot."""
    if slot in YES_NO_SLOTS:
        yes, no, any_value = YES_NO_SLOTS[slot]
        value = rng.choices(("yes", "no", DONTCARE), weights=(4, 4, 2))[0]
        return {"yes": yes, "no": no, DONTCARE: any_value}[value], value
    values, templates, any_value = VALUE_SLOTS[slot]
    if rng.random() < 0.15:
        return any_value, DONTCARE
    value = rng.choice(values)
    return rng.choice(templates).format(v=value), value


def _change(rng: random.Random, state: dict[str, str]) -> str | None:
    """Sometimes replace an earlier named value (not a number) and say so; else None."""
    slots = [
        s for s in state if s in VALUE_SLOTS and state[s] != DONTCARE and not state[s].isdigit()
    ]
    if not slots or rng.random() >= 0.15:
        return None
    slot = rng.choice(slots)
    old = state[slot]
    state[slot] = rng.choice([v for v in VALUE_SLOTS[slot][0] if v != old])
    return f"아, {old} 말고 {state[slot]} 쪽으로 바꿀게요."


def _requests(
    rng: random.Random, pending: dict[str, list[str]], opened: set[str], state: dict[str, str]
) -> list[str]:
    """Sentences asking for one or two open slots of the first domain that has some left."""
    domain = next((d for d, slots in pending.items() if slots), None)
    if domain is None:
        return ["그 조건으로 진행해 주세요."]
    sentences = []
    if domain not in opened:
        opened.add(domain)
        sentences.append(rng.choice(OPENINGS[domain]))
    for _ in range(min(len(pending[domain]), rng.randint(1, 2))):
        slot = pending[domain].pop()
        utterance, state[slot] = _request(rng, slot)
        sentences.append(utterance)
    return sentences


def _dialogue(rng: random.Random, guid: str) -> dict:
    domains = rng.sample(sorted(OPENINGS), rng.choice((1, 1, 2)))
    pending = {
        d: rng.sample(
            [s for s in [*VALUE_SLOTS, *YES_NO_SLOTS] if s.startswith(f"{d}-")], rng.randint(3, 4)
        )
        for d in domains
    }
    state: dict[str, str] = {}
    opened: set[str] = set()
    turns = []
    user_turns = rng.randint(2, 4)
    for number in range(user_turns):
        if number == 0 and rng.random() < 0.2:
            sentences = [rng.choice(GREETINGS)]
        elif number > 0 and (change := _change(rng, state)):
            sentences = [change]
        else:
            sentences = _requests(rng, pending, opened, state)
        turns.append(
            {
                "role": "user",
                "text": " ".join(sentences),
                "state": [f"{slot}-{value}" for slot, value in sorted(state.items())],
            }
        )
        reply = CLOSING if number == user_turns - 1 else rng.choice(SYSTEM_REPLIES)
        turns.append({"role": "sys", "text": reply})
    return {"guid": guid, "domains": domains, "dialogue": turns}


def generate(seed: int = 0, train_dialogues: int = 300, dev_dialogues: int = 120) -> dict:
    """Train and dev dialogues and the ontology, in the official WoS layout."""
    rng = random.Random(seed)
    return {
        "train": [_dialogue(rng, f"wos-v1_train_{i:05d}") for i in range(train_dialogues)],
        "dev": [_dialogue(rng, f"wos-v1_dev_{i:05d}") for i in range(dev_dialogues)],
        "ontology": ontology(),
    }
