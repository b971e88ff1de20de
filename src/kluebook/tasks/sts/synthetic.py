"""Generated KLUE-STS-style sentence pairs. Each domain builds sentences from three slots
(subject, attribute, predicate); the second sentence keeps some slots of the first, in other
words or word order, and replaces the rest. The more slots two sentences share, the higher the
annotators' scores, and a pair from two different domains shares nothing at all."""

import random
from collections import Counter

from kluebook.data.hangul import has_final_consonant
from kluebook.data.smoke_splits import numbered_splits

# Per domain: (source of paraphrase pairs, source of sampled pairs), then interchangeable
# wordings of each slot value. Rewording a value does not change the meaning.
DOMAINS = {
    "airbnb": (
        ("airbnb-rtt", "airbnb-sampled"),
        {
            "subject": [
                ["숙소", "숙박시설"],
                ["호스트", "집주인"],
                ["침대", "잠자리"],
                ["욕실", "화장실"],
            ],
            "attribute": [["위치가", "자리가"], ["청소 상태가", "청결이"], ["가격이", "요금이"]],
            "predicate": [
                ["아주 좋았어요", "정말 훌륭했어요"],
                ["조금 아쉬웠어요", "다소 불편했어요"],
            ],
        },
    ),
    "policy": (
        ("policy-rtt", "policy-sampled"),
        {
            "subject": [["정부", "당국"], ["지자체", "지방정부"], ["교육부", "교육 당국"]],
            "attribute": [
                ["청년 일자리를", "젊은 층 고용을"],
                ["주택 공급을", "집 공급을"],
                ["탄소 배출을", "온실가스 배출을"],
            ],
            "predicate": [
                ["늘리기로 했습니다", "확대하기로 했습니다"],
                ["줄이기로 했습니다", "감축하기로 했습니다"],
            ],
        },
    ),
    "paraKQC": (
        ("paraKQC-para", "paraKQC-sampled"),
        {
            "subject": [
                ["내일", "다음 날"],
                ["이번 주말", "이번 토요일과 일요일"],
                ["오늘 저녁", "오늘 밤"],
            ],
            "attribute": [
                ["알람을", "깨우는 소리를"],
                ["거실 조명을", "거실 불을"],
                ["난방을", "보일러를"],
            ],
            "predicate": [["켜 줄 수 있어?", "켜 줄래?"], ["꺼 줄 수 있니?", "끄는 게 가능해?"]],
        },
    ),
}
SLOTS = ("subject", "attribute", "predicate")
# Mean annotator score by the number of shared slots (same domain), and across domains.
SHARED_SCORE = {3: 4.6, 2: 3.4, 1: 2.1, 0: 1.1}
CROSS_DOMAIN_SCORE = 0.3
# Chance that a pair's sentences come from two different domains.
CROSS_DOMAIN_RATE = 0.15
# The guid of the record at `index` of a split, as the official files number them.
GUID = "klue-sts-v1_{split}_{index:05d}"


def generate(seed: int = 0, train_size: int = 1200, dev_size: int = 300) -> dict[str, list[dict]]:
    """Train and dev splits in the official KLUE-STS layout."""
    return numbered_splits(seed, GUID, _record, train_size, dev_size)


def topic_particle(word: str) -> str:
    """은 after a final consonant (batchim), 는 after a vowel."""
    return "은" if has_final_consonant(word) else "는"


def _sentence(rng: random.Random, words: dict, choice: dict[str, int]) -> str:
    """A sentence from one wording of each chosen slot value."""
    subject, attribute, predicate = (rng.choice(words[slot][choice[slot]]) for slot in SLOTS)
    return f"{subject}{topic_particle(subject)} {attribute} {predicate}"


def _choice(rng: random.Random, words: dict) -> dict[str, int]:
    return {slot: rng.randrange(len(words[slot])) for slot in SLOTS}


def _labels(rng: random.Random, mean: float) -> tuple[dict, dict]:
    """Official `labels` and `annotations` blocks for the integer scores of 5-7 annotators."""
    scores = [min(5, max(0, round(rng.gauss(mean, 0.8)))) for _ in range(rng.randint(5, 7))]
    real = sum(scores) / len(scores)
    counts = Counter(scores)
    annotators = rng.sample([f"{n:02d}" for n in range(1, 20)], len(scores))
    labels = {"label": round(real, 1), "real-label": real, "binary-label": int(real >= 3.0)}
    annotations = {
        "agreement": ":".join(str(counts[value]) for value in range(6)),
        "annotators": annotators,
        "annotations": scores,
    }
    return labels, annotations


def pair(rng: random.Random) -> tuple[str, str, str, float]:
    """(source, sentence1, sentence2, mean annotator score) of one generated pair."""
    domain = rng.choice(list(DOMAINS))
    (paraphrase_source, sampled_source), words = DOMAINS[domain]
    first = _choice(rng, words)
    sentence1 = _sentence(rng, words, first)
    if rng.random() < CROSS_DOMAIN_RATE:
        other_words = DOMAINS[rng.choice([d for d in DOMAINS if d != domain])][1]
        sentence2 = _sentence(rng, other_words, _choice(rng, other_words))
        return sampled_source, sentence1, sentence2, CROSS_DOMAIN_SCORE
    shared = rng.choice([3, 3, 2, 2, 1, 0])
    second = dict(first)
    for slot in rng.sample(SLOTS, 3 - shared):
        second[slot] = rng.choice([v for v in range(len(words[slot])) if v != first[slot]])
    sentence2 = _sentence(rng, words, second)
    source = paraphrase_source if shared == 3 else sampled_source
    return source, sentence1, sentence2, SHARED_SCORE[shared]


def _record(rng: random.Random, split: str) -> dict:
    source, sentence1, sentence2, mean = pair(rng)
    labels, annotations = _labels(rng, mean)
    return {
        "source": source,
        "sentence1": sentence1,
        "sentence2": sentence2,
        "labels": labels,
        "annotations": annotations,
    }
