"""What a prompted run asked of its model (`Usage`), counted exactly: by the local backend (the
tokens it read and wrote, against `transformers` one prompt at a time), by the server backend
(the server's reported tokens, kept in the cache so a rerun counts the same tokens as cache hits;
a response without them uncounted), and from a server's echoes in rank mode."""

import json
import time

import pytest
from support.serving import ScriptedServer

from kluebook.prompting.answering import RankRequest, Usage, answer_items
from kluebook.prompting.demonstrations import draw_demonstrations
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.prompting.render import render_prompt

MODEL = "llm"


@pytest.fixture(scope="module")
def prompts(tiny_lm, prompted_task, split_items):
    template = task_template(prompted_task)
    train, dev = split_items
    shots = draw_demonstrations(train, 2, seed=0)
    return [tiny_lm.model_input(render_prompt(template, shots, item)) for item in dev[:3]]


def test_the_local_backend_counts_the_tokens_it_read_and_wrote(tiny_lm, prompts, monkeypatch):
    import torch

    def encode(text):  # as the backend does: a chat template writes its own special tokens
        return tiny_lm.tokenizer(text, add_special_tokens=not tiny_lm.chat).input_ids

    def alone(ids):  # a generation of its own stops at its end of sequence: no padding after it
        with torch.no_grad():
            out = tiny_lm.model.generate(torch.tensor([ids]), max_new_tokens=6, do_sample=False)
        return out[0, len(ids) :].tolist()

    read = [encode(p) for p in prompts]
    # The random model writes no end of sequence: take for one a token it writes after one
    # prompt and not after another, so that a row ends early in its batch, padded after.
    free = [alone(ids) for ids in read]
    end = next(t for t in free[0] if any(t not in other for other in free[1:]))
    monkeypatch.setattr(tiny_lm.model.generation_config, "eos_token_id", end)
    written = [len(alone(ids)) for ids in read]
    assert min(written) < max(written) == 6
    before = tiny_lm.usage
    tiny_lm.generate(prompts, 6)
    # The tokens every prompt begins with are read once and reused for the two others.
    reused = 2 * common_length(read)
    assert reused > 0
    expected = Usage(3, 0, sum(map(len, read)) - reused, sum(written), reused_prompt_tokens=reused)
    assert tiny_lm.usage - before == expected

    answers = [" 정치", " IT과학"]
    contexts, scored = [], 0  # the tokens a prompt and all its whole texts begin with; the rest
    for prompt, ids in zip(prompts, read, strict=True):
        wholes = [encode(prompt + answer) for answer in answers]
        columns = list(zip(ids, *wholes, strict=False))
        common = next((i for i, c in enumerate(columns) if len(set(c)) > 1), len(columns))
        contexts.append(ids[:common])
        scored += sum(len(w) - common for w in wholes)
    reused = 2 * common_length(contexts)
    before = tiny_lm.usage
    tiny_lm.loglikelihoods([RankRequest(p, answers) for p in prompts])
    shared = sum(map(len, contexts)) - reused
    assert tiny_lm.usage - before == Usage(3, 0, shared, scored, reused_prompt_tokens=reused)


def common_length(sequences):
    """How many leading tokens all `sequences` share, each keeping at least its last one."""
    length = 0
    while all(len(s) > length + 1 and s[length] == sequences[0][length] for s in sequences):
        length += 1
    return length


def test_answering_keeps_what_it_asked_and_its_wall_time(tiny_lm, prompted_task, split_items):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    train, dev = split_items
    before = tiny_lm.usage
    answers = answer_items(tiny_lm, template, prompting, dev[:4], train[:1], "generate")
    assert answers.usage == tiny_lm.usage - before
    assert answers.usage.requests == 4 and answers.usage.completion_tokens > 0
    assert answers.wall_time_s > 0


def chat_body(content: str, usage: dict | None) -> bytes:
    choice = {"index": 0, "message": {"role": "assistant", "content": content}}
    body = {"id": "c", "object": "chat.completion", "created": 1, "model": MODEL}
    return json.dumps({**body, "choices": [choice], "usage": usage}).encode()


@pytest.fixture
def server():
    pytest.importorskip("openai", reason="the server backend needs the prompted extra")
    listing = [{"id": MODEL, "object": "model", "created": int(time.time()), "root": "/w/a"}]
    scripted = ScriptedServer(listing)
    yield scripted
    scripted.shutdown()


def test_the_server_backend_counts_reported_tokens_and_a_rerun_counts_cache_hits(server, tmp_path):
    from kluebook.prompting.server_lm import ServerLM

    told = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    server.body = chat_body("참", told)
    questions = ["전제: 비가 온다\n답:", "전제: 해가 뜬다\n답:"]
    cache = tmp_path / "responses.sqlite"
    first = ServerLM(server.base_url, MODEL, cache)
    assert first.generate(questions, 4) == ["참", "참"]
    assert first.usage == Usage(2, 0, 22, 6) and server.posts == 2

    rerun = ServerLM(server.base_url, MODEL, cache)
    assert rerun.generate(questions, 4) == ["참", "참"]
    assert rerun.usage == Usage(2, 2, 22, 6) and server.posts == 2  # the tokens of the cache

    server.body = chat_body("참", None)  # a server that reports no usage
    silent = ServerLM(server.base_url, MODEL, cache)
    silent.generate([*questions, "전제: 눈이 온다\n답:"], 4)
    assert silent.usage == Usage(3, 2, 22, 6, uncounted=1)


def test_rank_echoes_count_the_answer_tokens_after_the_shared_ones_as_completion():
    from kluebook.prompting.echo_scores import echoed_usage

    def echo(tokens, skipped=0):
        return {"before": [skipped, "digest"], "tokens": tokens, "logprobs": [0.0] * len(tokens)}

    prompt = ["제목", ":", " 리그", "\n", "주제", ":"]
    wholes = [echo([*prompt, " 스", "포츠"], 4), echo([*prompt, " 세계"], 4)]
    usage = echoed_usage(echo(prompt, 4), wholes)
    # Sent: 10 + 12 + 11 tokens; scored: the answers' 2 + 1 after the 6 shared.
    assert usage == Usage(prompt_tokens=30, completion_tokens=3)


@pytest.mark.slow
def test_a_real_server_and_the_local_backend_count_the_same_tokens(causal_folder, tmp_path):
    pytest.importorskip("fastapi", reason="transformers serve needs the prompted extra")
    from kluebook.prompting.local_lm import LocalCausalLM
    from kluebook.prompting.local_server import TransformersServer
    from kluebook.prompting.server_lm import ServerLM

    questions = ["전제: 비가 온다\n가설: 땅이 젖는다\n답:", "전제: 해가 뜬다\n가설: 밤이다\n답:"]
    local = LocalCausalLM(causal_folder, "tiny", device="cpu")
    local.generate([local.model_input(q) for q in questions], 3)
    cache = tmp_path / "responses.sqlite"
    with TransformersServer(causal_folder, tmp_path / "server.log") as server:
        served = ServerLM(server.base_url, str(causal_folder), cache)
        served.generate(questions, 3)  # its text keeps special tokens the local one drops
        rerun = ServerLM(server.base_url, str(causal_folder), cache)
        rerun.generate(questions, 3)
    assert local.chat and local.usage.requests == 2 and local.usage.completion_tokens > 0
    # The server's reported tokens, the local tokenizer's (which reads the shared ones once).
    read = local.usage.prompt_tokens + local.usage.reused_prompt_tokens
    assert served.usage == Usage(2, 0, read, local.usage.completion_tokens)
    assert rerun.usage == Usage(2, 2, read, local.usage.completion_tokens)
