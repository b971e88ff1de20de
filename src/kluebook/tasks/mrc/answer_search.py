"""The answer search of KLUE-MRC: the best span of a question over its windows' start and end
scores, as the SQuAD v2 pipeline of transformers 3.5.1 that the baseline used (see README.md here).

Prediction takes the 20 best starts and ends per window, keeps spans inside the context, at most
30 tokens long and starting in their "max-context" window, and answers "" when the null score (the
lowest first-token start+end over windows) beats the best span by more than 0.

Answer texts are cut from the context by character offsets, where 3.5.1 re-aligned wordpieces to
whitespace words; the two agree except around [UNK] tokens and runs of whitespace (which the
metric collapses anyway).
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .data import gold_answers
from .metric import mrc_scores
from .qa import Window, window_length

N_BEST = 20
MAX_ANSWER_TOKENS = 30
NULL_SCORE_THRESHOLD = 0.0


@dataclass(frozen=True)
class _Candidate:
    window_index: int
    start: int
    end: int
    score: float
    start_logit: float
    end_logit: float


def _best_indexes(logits: np.ndarray, n_best: int) -> list[int]:
    return [int(i) for i in np.argsort(-logits, kind="stable")[:n_best]]


def predict_answers(
    records: Sequence[dict],
    windows: Sequence[Window],
    start_logits: Sequence[Sequence[float]],
    end_logits: Sequence[Sequence[float]],
    n_best: int = N_BEST,
    max_answer_length: int = MAX_ANSWER_TOKENS,
    null_threshold: float = NULL_SCORE_THRESHOLD,
) -> dict[str, str]:
    """{guid: answer text, "" for no answer} from the start/end logits of every window.

    The logits of a window are searched over their whole length, as given (3.5.1 padded every
    window to max_length, so padding positions could take n-best slots without ever being chosen).
    """
    by_example: dict[int, list[int]] = {}
    for window_index, window in enumerate(windows):
        by_example.setdefault(window.example_index, []).append(window_index)
    predictions = {}
    for example_index, record in enumerate(records):
        window_indexes = by_example.get(example_index, [])
        predictions[record["guid"]] = _predict_one(
            record["context"],
            [
                (windows[i], np.asarray(start_logits[i]), np.asarray(end_logits[i]))
                for i in window_indexes
            ],
            n_best,
            max_answer_length,
            null_threshold,
        )
    return predictions


def _predict_one(
    context: str,
    scored_windows: list[tuple[Window, np.ndarray, np.ndarray]],
    n_best: int,
    max_answer_length: int,
    null_threshold: float,
) -> str:
    candidates = []
    null = None
    for window_index, (window, starts, ends) in enumerate(scored_windows):
        null_score = float(starts[0] + ends[0])
        if null is None or null_score < null.score:
            null = _Candidate(window_index, 0, 0, null_score, float(starts[0]), float(ends[0]))
        first, last = window.context_offset, window.context_offset + len(window.offsets) - 1
        for start in _best_indexes(starts, n_best):
            for end in _best_indexes(ends, n_best):
                if not (first <= start <= last and first <= end <= last):
                    continue
                if not window.max_context[start - first] or end < start:
                    continue
                if end - start + 1 > max_answer_length:
                    continue
                score = float(starts[start] + ends[end])
                candidates.append(
                    _Candidate(
                        window_index, start, end, score, float(starts[start]), float(ends[end])
                    )
                )
    if null is None:
        return ""
    candidates.append(null)
    candidates.sort(key=lambda c: c.score, reverse=True)
    texts: list[tuple[str, float]] = []
    for candidate in candidates:
        if len(texts) >= n_best:
            break
        text = "" if candidate.start == 0 else _span_text(context, scored_windows, candidate)
        if text not in (t for t, _ in texts):
            texts.append((text, candidate.score))
    if "" not in (t for t, _ in texts):
        texts.append(("", null.score))
    if len(texts) == 1:  # 3.5.1 then adds a placeholder answer "empty" scored 0
        texts.insert(0, ("empty", 0.0))
    best_text, best_score = next((t, s) for t, s in texts if t)
    return "" if null.score - best_score > null_threshold else best_text


def _span_text(
    context: str, scored_windows: list[tuple[Window, np.ndarray, np.ndarray]], candidate: _Candidate
) -> str:
    window = scored_windows[candidate.window_index][0]
    char_start = window.offsets[candidate.start - window.context_offset][0]
    char_end = window.offsets[candidate.end - window.context_offset][1]
    return context[char_start:char_end]


def answers_from_logits(
    records: Sequence[dict],
    windows: Sequence[Window],
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    search_padding: bool = False,
) -> dict[str, str]:
    """`predict_answers` on logits padded to a common length (as `Trainer.predict` returns them).

    With `search_padding` (pass the recipe's `pad_to_max_length`: the baseline padded every
    batch) the n-best search covers each whole row, so padding positions can take n-best slots
    as in transformers 3.5.1; otherwise each row is cut back to its window's own tokens first.
    """
    if search_padding:
        return predict_answers(records, windows, list(start_logits), list(end_logits))
    lengths = [window_length(window) for window in windows]
    return predict_answers(
        records,
        windows,
        [row[:length] for row, length in zip(start_logits, lengths, strict=True)],
        [row[:length] for row, length in zip(end_logits, lengths, strict=True)],
    )


def metrics_function(
    records: Sequence[dict], windows: Sequence[Window], search_padding: bool = False
):
    """A Trainer `compute_metrics` for the evaluation windows of `records`: windows -> answers
    (`answers_from_logits`, with `search_padding`) -> official EM and ROUGE-W (the evaluation
    must keep the windows' order)."""
    gold = [gold_answers(r) for r in records]

    def compute_metrics(prediction) -> dict[str, float]:
        start_logits, end_logits = prediction.predictions[:2]
        answers = answers_from_logits(records, windows, start_logits, end_logits, search_padding)
        return mrc_scores(gold, [answers[r["guid"]] for r in records])

    return compute_metrics
