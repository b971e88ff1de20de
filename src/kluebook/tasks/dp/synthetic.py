"""Generated DP sentences of 3-8 eojeols from a small grammar with regular heads and labels.

The last morpheme tag of an eojeol predicts its label (JKS/JX -> NP_SBJ, JKO -> NP_OBJ,
JKB -> NP_AJT, JKG -> NP_MOD, JC -> NP_CNJ, MM* -> DP, MAG -> AP, ETM -> VP_MOD, EC -> VP,
SF -> the root, VP or VNP), and simple rules give the heads: modifiers and conjuncts attach to
the next eojeol, subjects to the root, other arguments and adverbs to the nearest verb after them.
"""

import random
from dataclasses import dataclass

from kluebook.data.hangul import has_final_consonant
from kluebook.data.smoke_splits import train_and_dev

NAMES = ("민수", "지영", "현우", "수진", "태호", "은비", "준영", "하린")
PEOPLE = ("학생", "친구", "선생님", "아이", "동생", "기자", "의사", "가수")
PLACES = ("학교", "도서관", "시장", "공원", "회사", "식당", "극장", "바다")
MODIFIER_NOUNS = ("학교", "친구", "동생", "회사", "우리", "이웃")
DETERMINERS = (("이", "MMD"), ("그", "MMD"), ("저", "MMD"), ("새", "MMA"), ("두", "MMN"))
ADVERBS = ("빨리", "천천히", "함께", "다시", "자주", "오늘", "어제", "결국")
# Transitive roots: (word form, lemma, POS, objects that fit).
TRANSITIVE_ROOTS = (
    ("읽었다.", "읽 었 다 .", "VV+EP+EF+SF", ("책", "신문", "편지", "소설")),
    ("샀다.", "사 았 다 .", "VV+EP+EF+SF", ("사과", "빵", "책", "옷")),
    ("보았다.", "보 았 다 .", "VV+EP+EF+SF", ("영화", "사진", "그림", "공연")),
    ("만들었다.", "만들 었 다 .", "VV+EP+EF+SF", ("빵", "음식", "노래", "의자")),
    ("먹는다.", "먹 는다 .", "VV+EF+SF", ("사과", "빵", "음식", "과일")),
    ("썼다.", "쓰 었 다 .", "VV+EP+EF+SF", ("편지", "소설", "일기", "기사")),
)
# Intransitive roots: (word form, lemma, POS, particle of the place adjunct).
INTRANSITIVE_ROOTS = (
    ("갔다.", "가 았 다 .", "VV+EP+EF+SF", "에"),
    ("왔다.", "오 았 다 .", "VV+EP+EF+SF", "에"),
    ("일한다.", "일하 ㄴ다 .", "VV+EF+SF", "에서"),
    ("쉬었다.", "쉬 었 다 .", "VV+EP+EF+SF", "에서"),
)
ADJECTIVE_ROOTS = (
    ("조용하다.", "조용하 다 .", "VA+EF+SF"),
    ("넓다.", "넓 다 .", "VA+EF+SF"),
    ("좋다.", "좋 다 .", "VA+EF+SF"),
    ("크다.", "크 다 .", "VA+EF+SF"),
)
# Adnominal verbs before an object noun (VP_MOD) and connective verbs ending a clause (VP).
ADNOMINAL_VERBS = (
    ("산", "사 ㄴ"),
    ("읽은", "읽 은"),
    ("만든", "만들 ㄴ"),
    ("좋아하는", "좋아하 는"),
)
CLAUSE_VERBS = (
    ("가서", "가 아서", "에"),
    ("들러서", "들르 어서", "에"),
    ("모여서", "모이 어서", "에"),
)


@dataclass
class Eojeol:
    word_form: str
    lemma: str
    pos: str
    deprel: str
    attach: str  # "next", "verb" (nearest verb to the right), "root" or "is-root"


NOUN_ATTACHMENT = {
    "NP_SBJ": "root",
    "NP_OBJ": "verb",
    "NP_AJT": "verb",
    "NP_MOD": "next",
    "NP_CNJ": "next",
}


def _noun(
    noun: str, tag: str, particles: tuple[str, str], particle_tag: str, deprel: str
) -> Eojeol:
    """A noun with the particle that fits its last sound; particles = (after 받침, after vowel)."""
    particle = particles[0] if has_final_consonant(noun) else particles[1]
    pos = f"{tag}+{particle_tag}"
    return Eojeol(noun + particle, f"{noun} {particle}", pos, deprel, NOUN_ATTACHMENT[deprel])


def _subject(rng: random.Random, nouns: tuple[str, ...] = PEOPLE) -> list[Eojeol]:
    if rng.random() < 0.4:
        noun, tag = rng.choice(NAMES), "NNP"
    else:
        noun, tag = rng.choice(nouns), "NNG"
    particles, particle_tag = rng.choice([(("이", "가"), "JKS"), (("은", "는"), "JX")])
    return [_noun(noun, tag, particles, particle_tag, "NP_SBJ")]


def _noun_modifiers(rng: random.Random) -> list[Eojeol]:
    """Nothing, a determiner, or a genitive noun before a noun."""
    choice = rng.random()
    if choice < 0.2:
        word, tag = rng.choice(DETERMINERS)
        return [Eojeol(word, word, tag, "DP", "next")]
    if choice < 0.4:
        return [_noun(rng.choice(MODIFIER_NOUNS), "NNG", ("의", "의"), "JKG", "NP_MOD")]
    return []


def _adverb(rng: random.Random) -> list[Eojeol]:
    word = rng.choice(ADVERBS)
    return [Eojeol(word, word, "MAG", "AP", "verb")] if rng.random() < 0.3 else []


def _transitive(rng: random.Random) -> list[Eojeol]:
    word_form, lemma, pos, objects = rng.choice(TRANSITIVE_ROOTS)
    words = _subject(rng)
    if rng.random() < 0.3:
        verb, verb_lemma, particle = rng.choice(CLAUSE_VERBS)
        words += [
            _noun(rng.choice(PLACES), "NNG", (particle, particle), "JKB", "NP_AJT"),
            Eojeol(verb, verb_lemma, "VV+EC", "VP", "root"),
        ]
    object_noun = rng.choice(objects)
    if rng.random() < 0.25:
        verb, verb_lemma = rng.choice(ADNOMINAL_VERBS)
        words += [*_adverb(rng), Eojeol(verb, verb_lemma, "VV+ETM", "VP_MOD", "next")]
    else:
        words += _noun_modifiers(rng)
    if rng.random() < 0.2:
        other = rng.choice([noun for noun in objects if noun != object_noun])
        words.append(_noun(other, "NNG", ("과", "와"), "JC", "NP_CNJ"))
    words.append(_noun(object_noun, "NNG", ("을", "를"), "JKO", "NP_OBJ"))
    return [*words, *_adverb(rng), Eojeol(word_form, lemma, pos, "VP", "is-root")]


def _intransitive(rng: random.Random) -> list[Eojeol]:
    word_form, lemma, pos, particle = rng.choice(INTRANSITIVE_ROOTS)
    words = [*_adverb(rng), *_subject(rng), *_noun_modifiers(rng)]
    words.append(_noun(rng.choice(PLACES), "NNG", (particle, particle), "JKB", "NP_AJT"))
    return [*words, *_adverb(rng), Eojeol(word_form, lemma, pos, "VP", "is-root")]


def _adjective(rng: random.Random) -> list[Eojeol]:
    word_form, lemma, pos = rng.choice(ADJECTIVE_ROOTS)
    words = [*_noun_modifiers(rng), *_subject(rng, PLACES)]
    if rng.random() < 0.6:
        words.append(Eojeol("매우", "매우", "MAG", "AP", "verb"))
    return [*words, Eojeol(word_form, lemma, pos, "VP", "is-root")]


def _copula(rng: random.Random) -> list[Eojeol]:
    words = [*_subject(rng), *_noun_modifiers(rng)]
    if words[-1].deprel != "NP_MOD":
        words.append(_noun(rng.choice(PLACES), "NNG", ("의", "의"), "JKG", "NP_MOD"))
    noun = rng.choice(PEOPLE)
    copula = "이다" if has_final_consonant(noun) else "다"  # 이 drops after a vowel
    return [
        *words,
        Eojeol(f"{noun}{copula}.", f"{noun} 이 다 .", "NNG+VCP+EF+SF", "VNP", "is-root"),
    ]


SHAPES = (_transitive, _transitive, _intransitive, _adjective, _copula)
VERB_ENDINGS = ("EC", "ETM", "EF", "SF")


def _heads(words: list[Eojeol]) -> list[int]:
    """1-based heads from each eojeol's attachment rule (0 = root)."""
    root = next(i for i, w in enumerate(words, start=1) if w.attach == "is-root")
    heads = []
    for position, word in enumerate(words, start=1):
        if word.attach == "is-root":
            heads.append(0)
        elif word.attach == "next":
            heads.append(position + 1)
        elif word.attach == "root":
            heads.append(root)
        else:
            heads.append(
                next(
                    i
                    for i, w in enumerate(words[position:], start=position + 1)
                    if w.pos.split("+")[-1] in VERB_ENDINGS
                )
            )
    return heads


def sentence(rng: random.Random) -> list[Eojeol]:
    """Eojeols of one sentence of 3 to 8 eojeols."""
    while True:
        words = rng.choice(SHAPES)(rng)
        if 3 <= len(words) <= 8:
            return words


def _split(rng: random.Random, split: str, size: int) -> list[dict]:
    records = []
    for index in range(size):
        words = sentence(rng)
        records.append(
            {
                "guid": f"klue-dp-v1_{split}_{index:05d}_kluebook",
                "sentence": " ".join(w.word_form for w in words),
                "word_forms": [w.word_form for w in words],
                "lemmas": [w.lemma for w in words],
                "pos": [w.pos for w in words],
                "heads": _heads(words),
                "deprels": [w.deprel for w in words],
            }
        )
    return records


def generate(seed: int = 0, train_size: int = 800, dev_size: int = 200) -> dict[str, list[dict]]:
    """Train and dev splits in the official DP layout."""
    return train_and_dev(seed, _split, train_size, dev_size)
