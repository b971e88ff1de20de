"""Backend B against a real OpenAI-compatible server: `transformers serve` over the tiny causal
LM, started by the test on the loopback address, behind a counting proxy of the test's own.

A generate sweep is cut mid-way (the server is killed after a few answers), fails in one line,
and is resumed against a new server with no answered request asked again; a rerun asks
nothing but the server's model listing. The API key reaches the server and nothing else."""

from pathlib import Path

import pytest
from support.serving import CountingProxy, prompt_of

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import answer_items
from kluebook.prompting.local_lm import LocalCausalLM
from kluebook.prompting.local_server import TransformersServer
from kluebook.prompting.registry import task_prompting, task_template
from kluebook.prompting.render import render_prompt
from kluebook.prompting.server_lm import ServerLM
from kluebook.prompting.server_options import ServerOptions
from kluebook.training.checkpoints import model_id

pytest.importorskip("openai", reason="the server backend needs the prompted extra")
pytest.importorskip("fastapi", reason="transformers serve needs the prompted extra")

pytestmark = pytest.mark.slow

SECRET = "sk-kluebook-test-0123456789"


@pytest.fixture(scope="module")
def served_folder(tiny_lm):
    return Path(tiny_lm.model.name_or_path)


def test_a_sweep_cut_mid_way_resumes_from_the_cache_asking_nothing_twice(
    prompted_task, split_items, served_folder, tmp_path, monkeypatch
):
    monkeypatch.setenv("KLUEBOOK_OPENAI_API_KEY", SECRET)
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    train, dev = split_items
    items, cache = dev[:8], tmp_path / "cache" / "responses.sqlite"

    def backend(proxy):
        options = ServerOptions(concurrency=2, timeout=60, retries=1)
        return ServerLM(proxy.base_url, str(served_folder), cache, options=options)

    def sweep(proxy):
        return answer_items(backend(proxy), template, prompting, items, train[:2], "generate")

    first = TransformersServer(served_folder, tmp_path / "server-1.log")
    cut = CountingProxy(first, cut_after=3)
    with pytest.raises(KluebookError) as error:
        sweep(cut)
    message = str(error.value)
    assert message.startswith("the server (--base-url) does not answer"), message
    assert "\n" not in message and SECRET not in message
    answered_first = {prompt_of(body) for body in cut.answered}
    assert 3 <= len(answered_first) < len(items)  # cut mid-sweep (a request in flight may land)

    second = TransformersServer(served_folder, tmp_path / "server-2.log")
    resumed = CountingProxy(second)
    answers = sweep(resumed)
    asked_again = [prompt_of(body) for body in resumed.answered]
    assert not answered_first & set(asked_again)  # nothing answered is asked again
    assert len(asked_again) == len(set(asked_again)) == len(items) - len(answered_first)
    assert len(answers.predictions) == len(items)
    assert answers.first_prompt.endswith(f"제목: {items[0].fields['title']}\n주제:")

    # A rebuild asks nothing but which model the server runs: the same answers from the cache.
    rebuilt = answer_items(backend(resumed), template, prompting, items, train[:2], "generate")
    second.stop()
    assert rebuilt == answers
    assert rebuilt.usage.requests == rebuilt.usage.cache_hits == len(items)
    assert answers.usage.requests - answers.usage.cache_hits == len(asked_again)
    assert len(resumed.answered) == len(asked_again)

    # The key went to the server, and nowhere near the cache.
    assert cut.authorizations == resumed.authorizations == {f"Bearer {SECRET}"}
    for path in cache.parent.iterdir():
        assert SECRET.encode() not in path.read_bytes(), path


def test_the_served_model_answers_as_the_local_backend_does(
    prompted_task, split_items, served_folder, tmp_path
):
    template = task_template(prompted_task)
    prompting = task_prompting(prompted_task)
    train, dev = split_items
    server = TransformersServer(served_folder, tmp_path / "server.log")
    proxy = CountingProxy(server)
    try:
        lm = ServerLM(proxy.base_url, str(served_folder), tmp_path / "c.sqlite", chat=False)
        served = answer_items(lm, template, prompting, dev[:4], train[:2], "generate")
        chat = ServerLM(proxy.base_url, str(served_folder), tmp_path / "c.sqlite")
        served_chat = answer_items(chat, template, prompting, dev[:4], train[:2], "generate")
        # Rank mode needs the log-probabilities transformers serve does not give.
        with pytest.raises(KluebookError) as error:
            answer_items(lm, template, prompting, dev[:1], train[:2], "rank")
    finally:
        server.stop()
    assert str(error.value) == (
        "the server (--base-url) gave no usable answer in 3 tries: no token log-probabilities "
        f"for '{model_id(str(served_folder))}' (completions with echo and logprobs), which rank "
        "mode needs; mode 'generate' works with a server that gives none; nothing of it is "
        "kept, so a rerun asks again"
    )
    # The completions endpoint takes the plain prompt: what the local model writes after it.
    plain = [render_prompt(template, train[:2], item) for item in dev[:4]]
    without_chat = LocalCausalLM(served_folder, "tiny", device="cpu", use_chat_template=False)
    local = without_chat.generate(plain, template.max_new_tokens)
    assert [answer.strip() for answer in served.raw_answers] == [a.strip() for a in local]
    # The chat endpoint applies the model's chat template, as the local backend does, and ends
    # an answer at the same token; the server writes the special tokens a random model draws
    # (`<|im_start|>`, `[UNK]`), which the local backend leaves out.
    with_chat = LocalCausalLM(served_folder, "tiny", device="cpu")
    local_chat = with_chat.generate([with_chat.model_input(p) for p in plain], 6)

    def words(text: str) -> str:
        for token in with_chat.tokenizer.all_special_tokens:
            text = text.replace(token, " ")
        return " ".join(text.split())

    assert [words(a) for a in served_chat.raw_answers] == [words(a) for a in local_chat]


def test_a_server_that_does_not_answer_is_one_line(tmp_path):
    import socket

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with pytest.raises(KluebookError) as error:
        url, options = f"http://127.0.0.1:{port}/v1", ServerOptions(retries=0)
        ServerLM(url, "m", tmp_path / "c.sqlite", options=options)
    assert str(error.value) == (
        "the server (--base-url) does not answer (APIConnectionError, 1 try of up to 60 s): "
        "is it running, and is that its address?"
    )
