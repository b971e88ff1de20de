"""Rank scores from a server's echoes (completions with echo and logprobs), on responses shaped as
vLLM's OpenAI-compatible server returns them (`choices[0].logprobs`: `tokens`, `token_logprobs`
with none for the first token, `top_logprobs`, `text_offset`; then `usage`), built as the
openai client builds them (without validation). What the cache keeps of an echo, and the rank
rule applied to the echoes of a prompt and its answers."""

import pytest

from kluebook.common.errors import KluebookError
from kluebook.prompting.echo_scores import ECHO_WINDOW, echoed_scores, echoed_tokens

Completion = pytest.importorskip("openai.types.completion").Completion

PROMPT = "제목: 리그 개막\n주제:"


def vllm_response(tokens, values, usage=True):
    """A completions response as vLLM writes it for `echo=True, logprobs=1, max_tokens=1`."""
    offsets = [sum(len(t) for t in tokens[:j]) for j in range(len(tokens))]
    top = [None if v is None else {t: v} for t, v in zip(tokens, values, strict=True)]
    prompt_tokens = len(tokens) - 1
    payload = {
        "id": "cmpl-1",
        "object": "text_completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "text": "".join(tokens),
                "logprobs": {
                    "text_offset": offsets,
                    "token_logprobs": values,
                    "tokens": tokens,
                    "top_logprobs": top,
                },
                "finish_reason": "length",
                "stop_reason": None,
                "prompt_logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 1,
            "total_tokens": prompt_tokens + 1,
        }
        if usage
        else None,
    }
    return Completion.construct(**payload)


def kept(tokens, values, usage=True):
    response = vllm_response(tokens, values, usage)
    return echoed_tokens(response.choices[0].logprobs, len(PROMPT), response.usage)


PROMPT_TOKENS = ["제목", ":", " 리그", " 개막", "\n", "주제", ":"]
PROMPT_VALUES = [None, -1.0, -2.0, -2.5, -0.5, -1.5, -0.25]


def test_an_echo_is_kept_without_its_generated_token_with_or_without_the_usage():
    tokens, values = [*PROMPT_TOKENS, " 스", "포츠", "\n"], [*PROMPT_VALUES, -3.0, -0.75, -9.0]
    echo = kept(tokens, values)
    assert echo == kept(tokens, values, usage=False)
    assert echo["tokens"] == tokens[:-1] and echo["logprobs"] == values[:-1]
    assert echo["before"][0] == 0  # a short prompt is kept whole


def test_a_long_prompt_is_kept_from_a_window_before_the_answer_and_a_digest():
    shots = ["제목: 오늘의 뉴스 한 줄\n주제: 사회\n"] * 12
    tokens, values = [*shots, *PROMPT_TOKENS, " 사회", "\n"], [None, *[-1.0] * 19, -9.0]
    assert sum(len(t) for t in shots) > ECHO_WINDOW
    response = vllm_response(tokens, values)
    echo = echoed_tokens(response.choices[0].logprobs, len("".join(shots) + PROMPT))
    skipped, _ = echo["before"]
    assert 0 < skipped < len(shots) and echo["tokens"][-1] == " 사회"
    assert len(echo["tokens"]) == len(tokens) - 1 - skipped


def test_the_rule_on_echoes_scores_a_swallowed_answer_with_the_prompts_colon_for_every_choice():
    # "1" merges whole into the prompt's last token (":1" less the space, as a BPE may);
    # " 10" keeps the colon apart. Both are scored from the prompt's ":" on.
    prompt = kept([*PROMPT_TOKENS, "\n"], [*PROMPT_VALUES, -9.0])
    one = kept([*PROMPT_TOKENS[:-1], ": 1", "\n"], [*PROMPT_VALUES[:-1], -4.0, -9.0])
    ten = kept([*PROMPT_TOKENS, " 10", "\n"], [*PROMPT_VALUES, -2.0, -9.0])
    scores = echoed_scores(prompt, [one, ten])
    assert scores.logprobs == [-4.0, -0.25 + -2.0] and scores.crossings == 1
    alone = echoed_scores(prompt, [ten])  # with no crossing: the answer's tokens after the prompt's
    assert alone.logprobs == [-2.0] and alone.crossings == 0


def test_echoes_that_differ_before_the_kept_window_cannot_be_scored():
    shots = "제목: 오늘의 뉴스 한 줄\n주제: 사회\n" * 12
    end = len(shots + PROMPT)

    def echo(first_tokens):
        tokens = [*first_tokens, *PROMPT_TOKENS, "\n"]
        values = [None, *[-1.0] * (len(tokens) - 1)]
        return echoed_tokens(vllm_response(tokens, values).choices[0].logprobs, end)

    prompt, whole = echo([shots]), echo([shots[:5], shots[5:]])  # split otherwise, long before
    assert prompt["tokens"] == whole["tokens"] and prompt["before"] != whole["before"]
    with pytest.raises(KluebookError, match=r"^the echoed tokens of a prompt and its answers"):
        echoed_scores(prompt, [whole])


def test_an_echo_without_log_probabilities_gives_none():
    assert echoed_tokens(None, len(PROMPT)) is None
    empty = vllm_response([], [], usage=False).choices[0].logprobs
    assert echoed_tokens(empty, len(PROMPT)) is None
    gap = [*PROMPT_VALUES[:3], None, *PROMPT_VALUES[4:], -9.0]  # a prompt token without its value
    assert kept([*PROMPT_TOKENS, "\n"], gap) is None
    short = vllm_response([*PROMPT_TOKENS, "\n"], [*PROMPT_VALUES, -9.0]).choices[0].logprobs
    short.token_logprobs = short.token_logprobs[:-2]  # fewer values than tokens
    assert echoed_tokens(short, len(PROMPT)) is None
