"""Generated KLUE-MRC-style paragraphs about local events, with the three question types.

Each paragraph states who organised an event, where, when, who proposed it and how many took part,
plus distracting facts (volunteers, a quoted visitor). Paraphrase questions (type 1) ask one fact,
multi-sentence questions (type 2) link two sentences, and unanswerable questions (type 3) ask about
something the paragraph never says (a cancellation, a prize, a fee...), with a plausible answer of
the right kind. The words of a type-3 question give it away, so a model can learn when to abstain.
"""

import random

from kluebook.data.hangul import has_final_consonant
from kluebook.data.smoke_splits import train_and_dev

ORGANISERS = [
    "한빛문화재단",
    "푸른숲협회",
    "새솔대학교",
    "늘봄복지관",
    "가람청소년센터",
    "다솜예술회",
    "은하과학관",
    "너울시민모임",
    "바른길연구소",
    "햇살도서관",
    "미리내합창단",
    "온누리체육회",
]
EVENTS = [
    "음악 축제",
    "과학 박람회",
    "마라톤 대회",
    "사진 전시회",
    "요리 경연",
    "독서 캠프",
    "로봇 대회",
    "단편 영화제",
    "바둑 대회",
    "벼룩시장",
    "연날리기 대회",
    "합창 발표회",
    "그림 그리기 대회",
    "코딩 교실",
]
PLACES = [
    "부산",
    "대전",
    "광주",
    "춘천",
    "전주",
    "제주",
    "강릉",
    "수원",
    "청주",
    "포항",
    "목포",
    "여수",
    "안동",
    "원주",
    "군산",
    "속초",
]
SURNAMES = [
    "김",
    "이",
    "박",
    "최",
    "정",
    "강",
    "조",
    "윤",
    "장",
    "임",
    "한",
    "오",
    "서",
    "신",
    "권",
    "황",
]
GIVEN_NAMES = [
    "민준",
    "서연",
    "지훈",
    "수아",
    "도윤",
    "하은",
    "시우",
    "지민",
    "예준",
    "서윤",
    "지호",
    "채원",
    "현우",
    "다인",
    "건우",
    "소율",
    "태민",
    "유나",
    "준서",
    "가은",
]
ROLES = ("위원장", "관장", "대표", "교수")
# Question words of the unanswerable templates, never used in a paragraph.
TYPE3_CUES = ("취소", "두 번째", "상을 받은", "입장료")


def _particle(word: str, with_final: str, without_final: str) -> str:
    """The word followed by the particle form its last syllable calls for (은/는, 이/가, 을/를)."""
    return word + (with_final if has_final_consonant(word) else without_final)


def _facts(rng: random.Random) -> dict[str, str]:
    person, visitor = rng.sample([s + g for s in SURNAMES for g in rng.sample(GIVEN_NAMES, 3)], 2)
    participants = rng.randrange(30, 990, 10)
    volunteers = rng.randrange(12, 29)
    return {
        "org": rng.choice(ORGANISERS),
        "event": rng.choice(EVENTS),
        "place": rng.choice(PLACES),
        "date": f"{rng.randint(1, 12)}월 {rng.randint(1, 28)}일",
        "person": person,
        "role": rng.choice(ROLES),
        "visitor": visitor,
        "count": f"{participants}명",
        "volunteers": f"{volunteers}명",
    }


def _paragraph(rng: random.Random, f: dict[str, str]) -> str:
    opening = rng.choice(
        (
            f"{_particle(f['org'], '은', '는')} {f['date']}에 {f['place']}에서 "
            f"{_particle(f['event'], '을', '를')} 열었다.",
            f"{f['date']} {f['place']}에서 {_particle(f['org'], '이', '가')} 주최한 "
            f"{_particle(f['event'], '이', '가')} 열렸다.",
        )
    )
    proposal = rng.choice(
        (
            f"이 행사는 {f['person']} {_particle(f['role'], '이', '가')} 처음 제안했다.",
            f"행사를 처음 기획한 사람은 {f['person']} {f['role']}이다.",
        )
    )
    count = rng.choice(
        (f"행사에는 모두 {f['count']}이 참가했다.", f"참가자는 {f['count']}으로 집계됐다.")
    )
    extras = [
        f"자원봉사자 {f['volunteers']}도 진행을 도왔다.",
        f"관람객 {f['visitor']} 씨는 \u201c다시 오고 싶다\u201d고 말했다.",
    ]
    rng.shuffle(extras)
    return " ".join([opening, proposal, count, *extras])


def _questions(f: dict[str, str]) -> list[tuple[int, str, str]]:
    """(question type, question, fact key of the answer) for every template."""
    event, org, person = f["event"], f["org"], f"{f['person']} {f['role']}"
    return [
        (1, f"{_particle(event, '이', '가')} 열린 도시는 어디인가?", "place"),
        (1, f"{_particle(org, '이', '가')} 행사를 연 날짜는 언제인가?", "date"),
        (1, f"{event}에 참가한 인원은 몇 명인가?", "count"),
        (1, f"{_particle(event, '을', '를')} 처음 제안한 사람은 누구인가?", "person"),
        (2, f"{_particle(org, '이', '가')} 연 행사를 처음 제안한 사람은 누구인가?", "person"),
        (2, f"{_particle(person, '이', '가')} 제안한 행사는 어느 도시에서 열렸나?", "place"),
        (2, f"{_particle(person, '이', '가')} 제안한 행사에는 몇 명이 참가했나?", "count"),
        (2, f"{f['date']}에 열린 행사를 기획한 사람은 누구인가?", "person"),
        (3, f"{_particle(event, '이', '가')} 취소된 도시는 어디인가?", "place"),
        (3, f"{event}의 두 번째 행사는 언제 열리는가?", "date"),
        (3, f"{event}에서 상을 받은 사람은 누구인가?", "visitor"),
        (3, f"{event}의 입장료를 낸 관객은 몇 명인가?", "count"),
    ]


def _answers(context: str, text: str) -> list[dict]:
    start = context.index(text)
    answers = [{"text": text, "answer_start": start}]
    if text.endswith("명"):  # a count is also right without its counter word
        answers.append({"text": text[:-1], "answer_start": start})
    return answers


def _split(rng: random.Random, split: str, paragraphs: int) -> list[dict]:
    records = []
    for _ in range(paragraphs):
        facts = _facts(rng)
        context = _paragraph(rng, facts)
        for question_type, question, key in rng.sample(_questions(facts), 3):
            answers = _answers(context, facts[key])
            impossible = question_type == 3
            records.append(
                {
                    "guid": f"klue-mrc-v1_{split}_{len(records):05d}",
                    "title": f"{facts['place']} {facts['event']}",
                    "source": "kluebook-synthetic",
                    "news_category": None,
                    "context": context,
                    "question": question,
                    "answers": [] if impossible else answers,
                    "question_type": question_type,
                    "is_impossible": impossible,
                    "plausible_answers": answers[:1] if impossible else [],
                }
            )
    return records


def generate(seed: int = 0, train_paragraphs: int = 400, dev_paragraphs: int = 100) -> dict:
    """Train and dev questions (three per paragraph), flat records as `data.py` reads them."""
    return train_and_dev(seed, _split, train_paragraphs, dev_paragraphs)
