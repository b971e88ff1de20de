"""Generated YNAT-style headlines: each topic has its own vocabulary, mixed with shared words
and the odd word from another topic, so a model has to learn which words carry the topic."""

import random

from kluebook.data.smoke_splits import train_and_dev

from .data import LABELS

TOPIC_WORDS = {
    "정치": "국회 여당 야당 대통령 총리 장관 선거 공천 개헌 청와대 의원 탄핵 정당 대표 국정감사 "
    "법안 표결 외교부 통일부 비서실",
    "경제": "코스피 환율 금리 수출 물가 주가 은행 채권 부동산 기업 실적 투자 성장률 무역 "
    "소비자 증시 원화 배당 적자 흑자",
    "사회": "경찰 검찰 법원 재판 사고 화재 학교 교육청 노조 파업 시민 병원 복지 지역 "
    "수사 구속 판결 실종 안전 소방",
    "생활문화": "공연 전시 영화 드라마 음식 여행 축제 건강 음악 소설 미술관 날씨 패션 요리 "
    "가수 배우 출간 박물관 관객 연극",
    "세계": "미국 중국 일본 유럽 러시아 유엔 백악관 트럼프 시진핑 난민 중동 영국 독일 "
    "프랑스 총선 국제 외신 대사관 북미 나토",
    "IT과학": "스마트폰 인공지능 반도체 통신 앱 게임 로봇 우주 위성 데이터 보안 클라우드 "
    "소프트웨어 네이버 카카오 연구진 기술 인터넷 전자 플랫폼",
    "스포츠": "축구 야구 농구 배구 골프 감독 선수 올림픽 월드컵 리그 우승 결승 홈런 "
    "득점 시즌 대표팀 경기 메달 구단 챔피언",
}
SHARED_WORDS = (
    "올해 내년 첫 새 최대 최고 발표 추진 논란 확대 강화 우려 기대 결정 전망 공개 개최 돌입"
).split(" ")
ENDINGS = ("", "…", " 예정", " 눈길", " 주목", " 시작")
# Topic frequencies loosely follow a news feed: some topics are much more common than others.
WEIGHTS = {
    "정치": 14,
    "경제": 13,
    "사회": 12,
    "생활문화": 18,
    "세계": 16,
    "IT과학": 11,
    "스포츠": 16,
}


def headline(rng: random.Random, label: str) -> str:
    """One headline: two or three topic words, shared words, sometimes a distracting word."""
    words = rng.sample(TOPIC_WORDS[label].split(), rng.randint(2, 3))
    words += rng.sample(SHARED_WORDS, rng.randint(1, 2))
    if rng.random() < 0.3:
        other = rng.choice([t for t in LABELS if t != label])
        words.append(rng.choice(TOPIC_WORDS[other].split()))
    rng.shuffle(words)
    return " ".join(words) + rng.choice(ENDINGS)


def _split(rng: random.Random, split: str, size: int) -> list[dict]:
    labels = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()), k=size)
    records = []
    for index, label in enumerate(labels):
        day = rng.randint(1, 28)
        records.append(
            {
                "guid": f"ynat-v1_{split}_{index:05d}",
                "title": headline(rng, label),
                "label": label,
                "url": f"https://example.org/kluebook/ynat/{split}/{index:05d}",
                "date": f"2016.06.{day:02d}. 오전 10:{index % 60:02d}",
            }
        )
    return records


def generate(seed: int = 0, train_size: int = 1400, dev_size: int = 350) -> dict[str, list[dict]]:
    """Train and dev splits in the official YNAT layout."""
    return train_and_dev(seed, _split, train_size, dev_size)
