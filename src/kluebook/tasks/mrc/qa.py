"""Extractive QA features for KLUE-MRC: a question and its paragraph as sliding windows, labelled
for training (see README.md here; the answers are searched in `answer_search`).

Follows the SQuAD v2 pipeline of transformers 3.5.1 that the baseline used:
- the question is cut to 64 tokens; the context is cut into windows whose starts are `doc_stride`
  (128) tokens apart, each encoded as `[CLS] question [SEP] window [SEP]` (the layout of the
  BERT-style tokenizers of every KLUE checkpoint);
- training uses the first gold answer, labelled on the tokens of the whitespace words that hold
  it, shrunk to the answer's own tokenisation where that occurs inside them (`mrc_answer_labels`
  `words`; `pieces` labels the first and last token overlapping its characters); unanswerable
  questions and windows that do not hold the whole answer point at the first token; questions
  whose answer is not where its `answer_start` says are dropped.
"""

from collections.abc import Sequence
from dataclasses import dataclass

QUESTION_MAX_TOKENS = 64
DOC_STRIDE = 128


@dataclass(frozen=True)
class Window:
    """One window of one question: what is needed to map its logits back to context text."""

    example_index: int
    context_offset: int  # position of the window's first context token in the input
    offsets: list[tuple[int, int]]  # character span of each context token of the window
    max_context: list[bool]  # whether this window is the token's best-centred window


def _window_starts(num_tokens: int, capacity: int, doc_stride: int) -> list[tuple[int, int]]:
    """(start, length) of each window over `num_tokens` context tokens (at least one window)."""
    if capacity < 1 or (capacity < num_tokens and capacity < doc_stride):
        raise ValueError(
            f"max_length leaves {capacity} context tokens per window, fewer than the stride "
            f"{doc_stride}, and the context needs {num_tokens}"
        )
    windows = []
    start = 0
    while True:
        length = min(capacity, num_tokens - start)
        windows.append((start, length))
        if start + length >= num_tokens:
            return windows
        start += doc_stride


def _is_max_context(windows: list[tuple[int, int]], index: int, position: int) -> bool:
    """Whether window `index` gives token `position` the most context on its shorter side.

    Score = min(tokens left of it, tokens right of it) + 0.01 * window length; the first best wins.
    """
    best_score, best_index = None, None
    for window_index, (start, length) in enumerate(windows):
        end = start + length - 1
        if not start <= position <= end:
            continue
        score = min(position - start, end - position) + 0.01 * length
        if best_score is None or score > best_score:
            best_score, best_index = score, window_index
    return best_index == index


def _encode(records: Sequence[dict], tokenizer, max_query_length: int):
    questions = tokenizer(
        [r["question"] for r in records],
        add_special_tokens=False,
        truncation=True,
        max_length=max_query_length,
    )["input_ids"]
    contexts = tokenizer(
        [r["context"] for r in records], add_special_tokens=False, return_offsets_mapping=True
    )
    return questions, contexts["input_ids"], contexts["offset_mapping"]


def _inputs(tokenizer, question: list[int], window: list[int]) -> dict[str, list[int]]:
    input_ids = [tokenizer.cls_token_id, *question, tokenizer.sep_token_id]
    token_type_ids = [0] * len(input_ids)
    input_ids += [*window, tokenizer.sep_token_id]
    token_type_ids += [1] * (len(window) + 1)
    return {
        "input_ids": input_ids,
        "token_type_ids": token_type_ids,
        "attention_mask": [1] * len(input_ids),
    }


def _piece_answer_span(
    context: str, offsets: list[tuple[int, int]], answer: dict
) -> tuple[int, int] | None:
    """First and last context token overlapping the answer's characters; None where the answer
    is not at its `answer_start` (`mrc_answer_labels: pieces`)."""
    start, text = answer["answer_start"], answer["text"]
    if not text or context[start : start + len(text)] != text:
        return None
    span = _answer_token_span(offsets, start, start + len(text))
    return span if span[0] >= 0 else None


def _answer_token_span(offsets: list[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    """First and last context token overlapping the characters [start, end), or (-1, -1)."""
    covering = [i for i, (s, e) in enumerate(offsets) if s < end and e > start]
    return (covering[0], covering[-1]) if covering else (-1, -1)


def _is_whitespace(char: str) -> bool:
    return char in " \t\r\n" or ord(char) == 0x202F


def _whitespace_words(context: str) -> tuple[list[str], list[int]]:
    """The whitespace-separated words of `context` and the word each character is in (a space:
    the word before it, -1 at the start), as transformers 3.5.1's `SquadExample` splits them."""
    words, word_of, after_space = [], [], True
    for char in context:
        if _is_whitespace(char):
            after_space = True
        else:
            if after_space:
                words.append("")
            words[-1] += char
            after_space = False
        word_of.append(len(words) - 1)
    return words, word_of


def _word_answer_span(
    context: str, offsets: list[tuple[int, int]], tokens: list[str], answer: dict, tokenizer
) -> tuple[int, int] | None:
    """The training span of transformers 3.5.1's SQuAD features (`mrc_answer_labels: words`).

    The answer's characters select whole words; their tokens are the span, shrunk to the first
    run of tokens that equals the answer text tokenised on its own, if there is one
    (`_improve_answer_span`). None, as there, where the words do not contain the answer text.
    """
    start, text = answer["answer_start"], answer["text"]
    words, word_of = _whitespace_words(context)
    if not text or not 0 <= start < len(word_of) or word_of[start] < 0:
        return None
    first_word, last_word = word_of[start], word_of[min(start + len(text) - 1, len(word_of) - 1)]
    if " ".join(words[first_word : last_word + 1]).find(" ".join(text.split())) == -1:
        return None
    token_words = [word_of[s] for s, _ in offsets]
    first = next((i for i, w in enumerate(token_words) if w >= first_word), len(tokens))
    after = next((i for i, w in enumerate(token_words) if w > last_word), len(tokens))
    last = after - 1
    if first > last:
        return None
    wanted = " ".join(tokenizer.tokenize(text))
    for new_first in range(first, last + 1):
        for new_last in range(last, new_first - 1, -1):
            if " ".join(tokens[new_first : new_last + 1]) == wanted:
                return new_first, new_last
    return first, last


def train_features(
    records: Sequence[dict],
    tokenizer,
    max_length: int,
    doc_stride: int = DOC_STRIDE,
    max_query_length: int = QUESTION_MAX_TOKENS,
    answer_labels: str = "words",
) -> dict[str, list]:
    """Training windows (unpadded) with start/end positions; the first token means no answer.

    The answer's tokens are found as `answer_labels` says (the recipe switch
    `mrc_answer_labels`): `words`, as transformers 3.5.1 did; `pieces`, the first and last token
    that overlap the answer's characters.
    """
    by_words = answer_labels == "words"
    features: dict[str, list] = {
        key: []
        for key in (
            "input_ids",
            "token_type_ids",
            "attention_mask",
            "start_positions",
            "end_positions",
        )
    }
    questions, contexts, offset_lists = _encode(records, tokenizer, max_query_length)
    for record, question, context, offsets in zip(
        records, questions, contexts, offset_lists, strict=True
    ):
        answer_span = None
        if not record["is_impossible"]:
            if not record["answers"]:
                continue
            answer = record["answers"][0]
            if by_words:
                tokens = tokenizer.convert_ids_to_tokens(context)
                answer_span = _word_answer_span(
                    record["context"], offsets, tokens, answer, tokenizer
                )
            else:
                answer_span = _piece_answer_span(record["context"], offsets, answer)
            if answer_span is None:
                continue
        capacity = max_length - len(question) - 3
        for window_start, length in _window_starts(len(context), capacity, doc_stride):
            inputs = _inputs(tokenizer, question, context[window_start : window_start + length])
            first, last = 0, 0
            if (
                answer_span
                and window_start <= answer_span[0] <= answer_span[1] < window_start + length
            ):
                context_offset = len(question) + 2
                first = answer_span[0] - window_start + context_offset
                last = answer_span[1] - window_start + context_offset
            for key, value in inputs.items():
                features[key].append(value)
            features["start_positions"].append(first)
            features["end_positions"].append(last)
    return features


def eval_features(
    records: Sequence[dict],
    tokenizer,
    max_length: int,
    doc_stride: int = DOC_STRIDE,
    max_query_length: int = QUESTION_MAX_TOKENS,
) -> tuple[dict[str, list], list[Window]]:
    """Evaluation windows (unpadded model inputs) and, for each, its `Window` description."""
    features: dict[str, list] = {
        key: [] for key in ("input_ids", "token_type_ids", "attention_mask")
    }
    windows = []
    questions, contexts, offset_lists = _encode(records, tokenizer, max_query_length)
    for example_index, (question, context, offsets) in enumerate(
        zip(questions, contexts, offset_lists, strict=True)
    ):
        capacity = max_length - len(question) - 3
        spans = _window_starts(len(context), capacity, doc_stride)
        for window_index, (window_start, length) in enumerate(spans):
            inputs = _inputs(tokenizer, question, context[window_start : window_start + length])
            for key, value in inputs.items():
                features[key].append(value)
            positions = range(window_start, window_start + length)
            windows.append(
                Window(
                    example_index=example_index,
                    context_offset=len(question) + 2,
                    offsets=[tuple(offsets[p]) for p in positions],
                    max_context=[_is_max_context(spans, window_index, p) for p in positions],
                )
            )
    return features, windows


def window_labels(records: Sequence[dict], windows: Sequence[Window]) -> dict[str, list[int]]:
    """Start/end positions of each evaluation window, labelled as `train_features` labels its
    windows: the first gold answer's tokens when the window holds them all, else the first token.

    The Trainer calls `compute_metrics` only for data with labels; these also give a dev loss.
    """
    starts, ends = [], []
    for window in windows:
        record = records[window.example_index]
        first = last = 0
        if not record["is_impossible"] and record["answers"]:
            answer = record["answers"][0]
            start, text = answer["answer_start"], answer["text"]
            span = _answer_token_span(window.offsets, start, start + len(text))
            inside = span[0] >= 0 and (
                window.offsets[span[0]][0] <= start
                and window.offsets[span[1]][1] >= start + len(text)
            )
            if text and record["context"][start : start + len(text)] == text and inside:
                first, last = (position + window.context_offset for position in span)
        starts.append(first)
        ends.append(last)
    return {"start_positions": starts, "end_positions": ends}


def window_length(window: Window) -> int:
    """Number of input tokens of a window: [CLS] question [SEP] context [SEP]."""
    return window.context_offset + len(window.offsets) + 1
