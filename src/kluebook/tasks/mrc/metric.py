"""KLUE-MRC: exact match and character-level ROUGE-W as the official baseline computes them, and
both with the bracket pattern corrected (erratum `mrc-bracket-pattern`: quotes and brackets
replaced by a space, as the pattern meant). As meant, the pattern also turns the ASCII ' " < > ( )
into spaces, which the official code deletes with the rest of ASCII punctuation: 이글스(일본) is
이글스일본 officially and 이글스 일본 corrected. Quotes and brackets in neither, “” 「」, stay."""

import re
import string
from collections.abc import Sequence
from difflib import SequenceMatcher

# Meant to delete quotes and brackets, but the character class closes too early: the pattern only
# matches one of '"《》<>〈〉 followed by the literal four characters ()‘’. Kept as is for parity.
_BRACKET_PATTERN = re.compile(r"['\"《》<>〈〉]\(\)‘’")
_CORRECTED_BRACKET_PATTERN = re.compile(r"['\"《》<>〈〉()‘’]")
_ASCII_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str, corrected: bool = False) -> str:
    """Lower-case, apply the (no-op) bracket pattern (`corrected`: the pattern as meant), drop
    ASCII punctuation, squeeze spaces."""
    pattern = _CORRECTED_BRACKET_PATTERN if corrected else _BRACKET_PATTERN
    text = pattern.sub(" ", text.lower())
    text = "".join(char for char in text if char not in _ASCII_PUNCTUATION)
    return " ".join(text.split())


def rouge_w_single(prediction: str, gold: str) -> float:
    """F1 of the longest common substring of two normalized strings; gold "" needs prediction ""."""
    if gold == "":
        return float(prediction == "")
    matcher = SequenceMatcher(None, prediction, gold)
    common = matcher.find_longest_match(0, len(prediction), 0, len(gold)).size
    precision = common / len(prediction) if prediction else 0.0
    recall = common / len(gold)
    if precision + recall == 0.0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _gold_set(answers: Sequence[str], corrected: bool = False) -> list[str]:
    """Normalized gold answers; an unanswerable question (no answers) has the gold set [""]."""
    return [normalize_answer(answer, corrected) for answer in answers] if answers else [""]


def question_scores(
    prediction: str, answers: Sequence[str], corrected: bool = False
) -> tuple[float, float]:
    """(EM, ROUGE-W) of one question, each the maximum over its gold answers, on the 0-1 scale;
    `corrected`: normalized with the bracket pattern as meant."""
    predicted = normalize_answer(prediction, corrected)
    golds = _gold_set(answers, corrected)
    exact = max(float(predicted == gold) for gold in golds)
    rouge = max(rouge_w_single(predicted, gold) for gold in golds)
    return exact, rouge


def mrc_scores(
    answers: Sequence[Sequence[str]], predictions: Sequence[str], corrected: bool = False
) -> dict[str, float]:
    """Mean EM and ROUGE-W over all questions x100 (`corrected`: with the bracket pattern as
    meant); an unanswerable question has answers []."""
    if len(answers) != len(predictions):
        raise ValueError(f"{len(answers)} questions but {len(predictions)} predictions")
    if not answers:
        raise ValueError("no questions to score")
    pairs = [question_scores(p, a, corrected) for p, a in zip(predictions, answers, strict=True)]
    return {
        "exact_match": 100.0 * sum(em for em, _ in pairs) / len(pairs),
        "rouge_w": 100.0 * sum(rouge for _, rouge in pairs) / len(pairs),
    }
