"""Generated KLUE-NLI-style pairs. The premise tells who did what, where and when; an
entailed hypothesis repeats part of it, a contradicting one negates it, and a neutral one adds
something the premise does not say. A few labels are flipped to keep the task from being exact.
As in the official files, train records name their source `genre` and dev records `source`."""

import random

from kluebook.data.hangul import has_final_consonant
from kluebook.data.smoke_splits import numbered_splits

from .data import LABELS, SOURCES

PEOPLE = ("민수", "지영", "서준", "하린", "도현", "유진", "태오", "수아", "현우", "채원")
PLACES = ("카페", "도서관", "공원", "시장", "학교", "호텔", "극장", "식당")
TIMES = ("어제", "지난주", "오늘 아침", "주말에", "방금", "저녁에")
# (object, past tense, negated past tense)
ACTIONS = (
    ("책", "읽었다", "읽지 않았다"),
    ("커피", "마셨다", "마시지 않았다"),
    ("영화", "봤다", "보지 않았다"),
    ("점심", "먹었다", "먹지 않았다"),
    ("편지", "썼다", "쓰지 않았다"),
    ("노래", "불렀다", "부르지 않았다"),
    ("사진", "찍었다", "찍지 않았다"),
    ("옷", "샀다", "사지 않았다"),
)
COMPANIONS = ("친구", "동생", "동료", "부모님")
LABEL_NOISE = 0.05
# The guid of the record at `index` of a split, as the official files number them.
GUID = "klue-nli-v1_{split}_{index:05d}"


def generate(seed: int = 0, train_size: int = 1200, dev_size: int = 300) -> dict[str, list[dict]]:
    """Train and dev splits in the official KLUE-NLI layout."""
    return numbered_splits(seed, GUID, _record, train_size, dev_size)


def topic(word: str) -> str:
    return word + ("은" if has_final_consonant(word) else "는")


def object_(word: str) -> str:
    return word + ("을" if has_final_consonant(word) else "를")


def with_(word: str) -> str:
    return word + ("과" if has_final_consonant(word) else "와")


def hypothesis(rng: random.Random, label: str, person: str, place: str, action: tuple) -> str:
    """A hypothesis of the given label for the premise about person, place and action."""
    thing, done, not_done = action
    if label == "entailment":
        return rng.choice(
            [
                f"{topic(person)} {object_(thing)} {done}.",
                f"{topic(person)} {place}에 갔다.",
                f"{place}에서 {object_(thing)} {done}.",
            ]
        )
    if label == "contradiction":
        return rng.choice(
            [
                f"{topic(person)} {object_(thing)} {not_done}.",
                f"{topic(person)} {place}에 간 적이 없다.",
                f"{topic(person)} 아무것도 하지 않았다.",
            ]
        )
    companion = rng.choice(COMPANIONS)
    return rng.choice(
        [
            f"{topic(person)} {with_(companion)} 함께 {object_(thing)} {done}.",
            f"{topic(person)} 매주 {place}에 간다.",
            f"{topic(person)} {object_(thing)} 처음으로 {done}.",
            f"{topic(person)} {thing}에 관심이 많다.",
        ]
    )


def example(rng: random.Random) -> tuple[str, str, str]:
    """(premise, hypothesis, gold label) of one generated pair."""
    person, place, time = rng.choice(PEOPLE), rng.choice(PLACES), rng.choice(TIMES)
    action = rng.choice(ACTIONS)
    premise = f"{topic(person)} {time} {place}에서 {object_(action[0])} {action[1]}."
    label = rng.choice(LABELS)
    text = hypothesis(rng, label, person, place, action)
    if rng.random() < LABEL_NOISE:
        label = rng.choice([other for other in LABELS if other != label])
    return premise, text, label


def _record(rng: random.Random, split: str) -> dict:
    """One pair with its author's and four validators' labels; the official train file calls
    the source `genre`."""
    premise, text, label = example(rng)
    validators = [label if rng.random() < 0.9 else rng.choice(LABELS) for _ in range(4)]
    return {
        "genre" if split == "train" else "source": rng.choice(SOURCES),
        "premise": premise,
        "hypothesis": text,
        "gold_label": label,
        "author": label,
        **{f"label{n}": v for n, v in enumerate(validators, start=2)},
    }
