"""Rank scores from a server's echoed log-probabilities (completions with echo and logprobs, as
vLLM, llama.cpp and the OpenAI legacy API give them): the answer's tokens are those that start
inside it, found by their character offsets. The responses are built as the openai client
builds them (without validation: a server gives no value for the first token)."""

import pytest

from kluebook.prompting.server_lm import echoed_logprob

Logprobs = pytest.importorskip("openai.types.completion_choice").Logprobs

PROMPT = "제목: 리그 개막\n주제:"
ANSWER = " 스포츠"


def echoed(tokens, values):
    offsets, at = [], 0
    for token in tokens:
        offsets.append(at)
        at += len(token)
    return Logprobs.model_construct(tokens=tokens, token_logprobs=values, text_offset=offsets)


def test_the_answers_tokens_are_summed_and_the_generated_one_left_out():
    # The echoed prompt and answer, then the one token the request had to generate.
    tokens = ["제목", ":", " 리그", " 개막", "\n", "주제", ":", " 스", "포츠", "\n"]
    values = [None, -1.0, -2.0, -2.5, -0.5, -1.5, -0.25, -3.0, -0.75, -9.0]
    logprobs = echoed(tokens, values)
    assert echoed_logprob(logprobs, len(PROMPT), len(PROMPT + ANSWER)) == -3.75


def test_a_response_without_log_probabilities_gives_none():
    assert echoed_logprob(None, len(PROMPT), len(PROMPT + ANSWER)) is None
    missing = echoed(["제목"], [None])
    assert echoed_logprob(missing, 0, 2) is None  # a token without its value
    empty = Logprobs.model_construct()
    assert echoed_logprob(empty, len(PROMPT), len(PROMPT + ANSWER)) is None
