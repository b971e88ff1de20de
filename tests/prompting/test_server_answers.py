"""What the server backend keeps of a server's answers: only usable ones. A scripted server
answers with the shapes of a broken one (no content, no choices, a body cut short, no
log-probabilities in rank mode); each is tried again, then fails in one line naming the
problem, and nothing of it is cached, so the same request asked of a healthy server is asked
again. The served model's identity (`/v1/models`) keys the cache; `reask` asks afresh."""

import json
import time

import pytest
from support.serving import ScriptedServer

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankRequest
from kluebook.prompting.response_cache import ResponseCache
from kluebook.prompting.served_model import served_model
from kluebook.prompting.server_lm import ServerLM
from kluebook.prompting.server_options import ServerOptions, server_options

pytest.importorskip("openai", reason="the server backend needs the prompted extra")

MODEL = "llm"
LISTING = [{"id": MODEL, "object": "model", "created": int(time.time()), "root": "/w/model-a"}]
OPTIONS = ServerOptions(timeout=10, retries=1)


def chat_body(content) -> bytes:
    choice = {"index": 0, "message": {"role": "assistant", "content": content}}
    return json.dumps(
        {"id": "c", "object": "chat.completion", "created": 1, "model": MODEL, "choices": [choice]}
    ).encode()


def completion_body(logprobs) -> bytes:
    choice = {"index": 0, "text": "x", "logprobs": logprobs, "finish_reason": "length"}
    return json.dumps(
        {"id": "c", "object": "text_completion", "created": 1, "model": MODEL, "choices": [choice]}
    ).encode()


BROKEN = {
    "no content": (chat_body(None), "an answer with no content"),
    "no choices": (
        json.dumps({"id": "c", "object": "chat.completion", "choices": []}).encode(),
        "an answer with no choices",
    ),
    "cut short": (chat_body("참")[:40], "a body that is not the API's JSON"),
}


@pytest.fixture
def server():
    scripted = ScriptedServer(LISTING)
    yield scripted
    scripted.shutdown()


@pytest.mark.parametrize("shape", list(BROKEN))
def test_an_unusable_answer_is_tried_again_then_one_line_and_never_cached(shape, server, tmp_path):
    server.body, problem = BROKEN[shape]
    cache = tmp_path / "responses.sqlite"
    lm = ServerLM(server.base_url, MODEL, cache, options=OPTIONS)
    with pytest.raises(KluebookError) as error:
        lm.generate(["전제: 비가 온다\n가설: 땅이 젖는다\n답:"], 4)
    message = str(error.value)
    assert message.startswith("the server (--base-url) gave no usable answer in 2 tries: ")
    assert problem in message and "\n" not in message and "127.0.0.1" not in message
    assert server.posts == 2  # the first try and one retry
    assert len(ResponseCache(cache)) == 0

    server.body = chat_body("참")  # healthy again: the request is asked, answered and kept
    again = ServerLM(server.base_url, MODEL, cache, options=OPTIONS)
    assert again.generate(["전제: 비가 온다\n가설: 땅이 젖는다\n답:"], 4) == ["참"]
    assert server.posts == 3 and again.asked == 1 and len(ResponseCache(cache)) == 1


def test_rank_mode_without_log_probabilities_is_one_line_and_never_cached(server, tmp_path):
    server.body = completion_body(None)
    cache = tmp_path / "responses.sqlite"
    lm = ServerLM(server.base_url, MODEL, cache, options=OPTIONS)
    with pytest.raises(KluebookError) as error:
        lm.loglikelihoods([RankRequest("전제: 비가 온다\n답:", [" 참"])])
    assert "no token log-probabilities for 'llm'" in str(error.value)
    assert "mode 'generate' works" in str(error.value)
    # Both texts (the prompt, then with its answer) were sent, each tried twice at most.
    assert 2 <= server.posts <= 4 and len(ResponseCache(cache)) == 0


def test_a_refusal_says_what_kind_and_repeats_nothing_the_server_wrote(server, tmp_path):
    server.status, server.body = 401, b'{"error": {"message": "Incorrect API key: sk-echoed"}}'
    lm = ServerLM(server.base_url, MODEL, tmp_path / "c.sqlite", options=OPTIONS)
    with pytest.raises(KluebookError) as error:
        lm.generate(["답:"], 4)
    assert str(error.value) == (
        "the server (--base-url) refused the API key (401): set KLUEBOOK_OPENAI_API_KEY "
        "(or OPENAI_API_KEY) to a key it accepts"
    )
    server.status, server.body = 500, b'{"error": {"message": "boom sk-echoed"}}'
    with pytest.raises(KluebookError) as error:
        lm.generate(["답:"], 4)
    assert "(500 Internal Server Error)" in str(error.value)
    assert "sk-echoed" not in str(error.value)


def test_answers_are_kept_per_served_model_and_reask_asks_afresh(server, tmp_path):
    cache, prompt = tmp_path / "responses.sqlite", ["제목: 리그 개막\n주제:"]
    server.body = chat_body("스포츠")
    first = ServerLM(server.base_url, MODEL, cache, options=OPTIONS)
    assert first.generate(prompt, 4) == ["스포츠"] and server.posts == 1
    assert ServerLM(server.base_url, MODEL, cache, options=OPTIONS).generate(prompt, 4)
    assert server.posts == 1  # answered by the cache

    afresh = ServerLM(server.base_url, MODEL, cache, options=ServerOptions(retries=1, reask=True))
    assert afresh.generate(prompt, 4) == ["스포츠"] and server.posts == 2

    # Another model under the same name: another identity, so the cache does not answer for it.
    server.models = [{**LISTING[0], "root": "/w/model-b"}]
    server.body = chat_body("정치")
    other = ServerLM(server.base_url, MODEL, cache, options=OPTIONS)
    assert other.served.identity != first.served.identity
    assert other.generate(prompt, 4) == ["정치"] and server.posts == 3
    # A run planned against the first model refuses to mix in the second's answers.
    with pytest.raises(KluebookError, match="now runs another model as 'llm'"):
        ServerLM(server.base_url, MODEL, cache, options=OPTIONS, expected=first.served.identity)


def test_the_identity_is_what_tells_models_apart_not_the_servers_clock():
    now = 1_800_000_000
    vllm = {"id": "llm", "created": now - 1, "root": "/models/a", "owned_by": "vllm"}
    assert served_model([vllm], "llm", now) == served_model([{**vllm, "created": now}], "llm", now)
    assert served_model([vllm], "llm", now) != served_model(
        [{**vllm, "root": "/models/b"}], "llm", now
    )
    ollama = {"id": "qwen:7b", "created": 1_700_000_000, "owned_by": "library"}
    pulled_again = served_model([{**ollama, "created": 1_750_000_000}], "qwen:7b", now)
    assert served_model([ollama], "qwen:7b", now).identity != pulled_again.identity
    assert served_model([ollama], "qwen:7b", now).created == 1_700_000_000
    assert not served_model([vllm], "other", now).listed


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ({"timeout": 0}, "the request timeout must be a number of seconds > 0, got 0"),
        ({"retries": -1}, "retries must be a whole number >= 0, got -1"),
        ({"concurrency": 0}, "concurrency must be a whole number >= 1, got 0"),
        ({"tries": 3}, "server_options: unknown option 'tries'"),
    ],
)
def test_server_options_are_checked_in_one_line(given, problem):
    with pytest.raises(KluebookError) as error:
        server_options(given)
    assert str(error.value).startswith(problem)
