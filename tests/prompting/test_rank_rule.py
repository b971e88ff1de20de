"""The rank rule (`conditioning_length`): every choice of an item is scored after the tokens that
the prompt and all the choices' whole texts share. Checked against a plain forward pass over
each whole text (no cache, no padding) on two tokenizer families: the tiny WordPiece, whose
tokens stop at spaces and punctuation, and a BPE trained without a pre-tokenizer, whose tokens
cross the prompt's end (`답: 1` is one token, and so is `라\\n답: 2`); and the server backend on
echoes shaped as vLLM's completions endpoint gives them, which must score as the local one."""

import json
import random
import threading
import time

import pytest
from support.serving import JsonHandler, LoopbackServer

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankRequest, conditioning_length, continuation
from kluebook.prompting.local_lm import LocalCausalLM
from kluebook.prompting.tiny_causal_lm import TINY_CAUSAL_SIZE

CHOICES = ("1", "2", "10", "없음")
SYLLABLES = "가나다라마바사아자차카타파하"


def sentence(rng):
    words = ("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))) for _ in range(4))
    return " ".join(words)


@pytest.fixture(scope="module")
def crossing_folder(tmp_path_factory):
    """A tiny Qwen3 with a BPE trained on `문장: …\\n답: N` lines without a pre-tokenizer."""
    import torch
    from tokenizers import Tokenizer, models, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    rng = random.Random(0)
    texts = [f"문장: {sentence(rng)}\n답: {rng.choice('123')}" for _ in range(300)]
    backend = Tokenizer(models.BPE(unk_token="<unk>"))
    special = ["<unk>", "<pad>", "<eos>"]
    trainer = trainers.BpeTrainer(vocab_size=90, special_tokens=special, show_progress=False)
    backend.train_from_iterator([*texts, "0 10 없음 a"], trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )
    config = Qwen3Config(
        vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, **TINY_CAUSAL_SIZE
    )
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("crossing-bpe")
    Qwen3ForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def crossing_prompts():
    rng = random.Random(1)
    shots = "".join(f"문장: {sentence(rng)}\n답: {rng.choice('123')}\n" for _ in range(8))
    queries = ["문장: 가나 다라\n답:", "문장: 하파 타\n답:", f"{shots}문장: 사아 자\n답:"]
    return [*queries, *(f"문장: {sentence(rng)}\n답:" for _ in range(3))]


@pytest.fixture(scope="module")
def crossing_lm(crossing_folder):
    return LocalCausalLM(crossing_folder, "crossing-bpe", device="cpu", batch_size=2)


@pytest.fixture(scope="module")
def plain_tiny_lm(tiny_lm):
    """The tiny WordPiece model on plain prompts (its tokenizer's own `[CLS]` first)."""
    folder = tiny_lm.model.name_or_path
    return LocalCausalLM(folder, "tiny", device="cpu", batch_size=3, use_chat_template=False)


def tiny_prompts(split_items):
    train, dev = split_items
    shots = "".join(f"제목: {item.fields['title']}\n주제: {item.answer}\n" for item in train[:6])
    return [
        f"{shots if i == 0 else ''}제목: {item.fields['title']}\n주제:"
        for i, item in enumerate(dev[:5])
    ]


def by_hand(lm, prompt, answers):
    """The rule, unbatched: each whole text run alone, its tokens after the shared ones summed;
    and how many whole texts do not begin with the prompt's tokens."""
    import torch

    def encode(text):
        return lm.tokenizer(text, add_special_tokens=not lm.chat).input_ids

    own, wholes = encode(prompt), [encode(prompt + answer) for answer in answers]
    shared = min(len(own), *(len(whole) for whole in wholes))
    while any(whole[:shared] != own[:shared] for whole in wholes):
        shared -= 1
    scores = []
    for whole in wholes:
        with torch.no_grad():
            logits = lm.model(torch.tensor([whole])).logits[0]
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        scores.append(sum(logprobs[j - 1, whole[j]].item() for j in range(shared, len(whole))))
    return scores, sum(whole[: len(own)] != own for whole in wholes), own, wholes, shared


def requests_of(prompts, choices=CHOICES):
    return [RankRequest(p, [continuation(p, choice) for choice in choices]) for p in prompts]


def test_the_rule_is_the_shared_token_prefix_and_counts_the_crossings():
    prompt = ["문장", ":", "라", "\n답", ":"]
    one = ["문장", ":", "라", "\n답: 1"]  # the answer swallowed whole into the prompt's end
    two = ["문장", ":", "라\n답: 2"]  # crossing further back
    ten = ["문장", ":", "라", "\n답: 1", "0"]
    assert conditioning_length(prompt, [one, ten]) == (3, 2)
    assert conditioning_length(prompt, [one, two, ten]) == (2, 3)
    clean = [[*prompt, " 없"], [*prompt, " 1", "0"]]  # the usual convention: after the prompt
    assert conditioning_length(prompt, clean) == (5, 0)
    with pytest.raises(KluebookError, match=r"^a prompt and its answers share no first token"):
        conditioning_length(["답:"], [["답: 1"]])
    with pytest.raises(KluebookError, match=r"^an answer adds no token to its prompt"):
        conditioning_length(prompt, [prompt[:3], one])


def test_a_bpe_whose_tokens_cross_the_prompts_end_scores_every_choice_after_the_same_tokens(
    crossing_lm,
):
    requests = requests_of(crossing_prompts())
    found = crossing_lm.loglikelihoods(requests)
    swallowed = crossed_further_back = 0
    for request, scores in zip(requests, found, strict=True):
        expected, crossings, own, wholes, shared = by_hand(
            crossing_lm, request.prompt, request.continuations
        )
        assert scores.logprobs == pytest.approx(expected, abs=1e-4)
        assert scores.crossings == crossings > 0
        swallowed += len(wholes[0]) < len(own)  # "1" lies inside a token holding "\n답: "
        crossed_further_back += shared < len(own) - 1
    assert swallowed == len(requests) and crossed_further_back > 0


def test_with_tokens_that_stop_at_spaces_the_rule_is_the_usual_convention(
    plain_tiny_lm, split_items
):
    requests = requests_of(tiny_prompts(split_items), ("정치", "IT과학", "생활문화", "세계"))
    found = plain_tiny_lm.loglikelihoods(requests)
    for request, scores in zip(requests, found, strict=True):
        expected, crossings, own, _, shared = by_hand(
            plain_tiny_lm, request.prompt, request.continuations
        )
        assert shared == len(own) and crossings == scores.crossings == 0
        assert scores.logprobs == pytest.approx(expected, abs=1e-4)


class VllmLikeServer(LoopbackServer):
    """`/v1/completions` with `echo` and `logprobs` answered as vLLM's OpenAI-compatible server
    answers it, from a local model: the prompt's tokens (its tokenizer's special tokens
    added) and one generated, each token as its decoded text, `text_offset` the running length
    of those texts, no log-probability for the first token, and the usage."""

    def __init__(self, lm):
        self.lm, self.lock, self.bodies = lm, threading.Lock(), []
        super().__init__(EchoHandler)

    def completion(self, body):
        import torch

        tokenizer, model = self.lm.tokenizer, self.lm.model
        ids = tokenizer(body["prompt"]).input_ids
        with self.lock, torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0].float()
        logprobs = torch.log_softmax(logits, dim=-1)
        ids = [*ids, int(logprobs[-1].argmax())]
        tokens = [tokenizer.decode([i]) for i in ids]
        values = [None, *(logprobs[j - 1, ids[j]].item() for j in range(1, len(ids)))]
        offsets = [sum(len(t) for t in tokens[:j]) for j in range(len(ids))]
        top = [None, *({t: v} for t, v in zip(tokens[1:], values[1:], strict=True))]
        logprobs_field = {
            "text_offset": offsets,
            "token_logprobs": values,
            "tokens": tokens,
            "top_logprobs": top,
        }
        choice = {
            "index": 0,
            "text": body["prompt"] + tokens[-1],
            "logprobs": logprobs_field,
            "finish_reason": "length",
            "stop_reason": None,
            "prompt_logprobs": None,
        }
        usage = {"prompt_tokens": len(ids) - 1, "completion_tokens": 1, "total_tokens": len(ids)}
        return {
            "id": "cmpl-test",
            "object": "text_completion",
            "created": 0,
            "model": body["model"],
            "choices": [choice],
            "usage": usage,
        }


class EchoHandler(JsonHandler):
    def do_GET(self):  # `/v1/models`, as vLLM lists a model served under a name of its own
        entry = {"id": "m", "object": "model", "created": int(time.time()), "root": "/models/m"}
        self._send(200, json.dumps({"object": "list", "data": [entry]}).encode())

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.bodies.append(body)
        self._send(200, json.dumps(self.server.completion(body)).encode())


@pytest.mark.parametrize("family", ["crossing BPE", "WordPiece"])
def test_a_served_model_scores_by_the_same_rule_as_the_local_one(
    family, crossing_lm, plain_tiny_lm, split_items, tmp_path
):
    pytest.importorskip("openai", reason="the server backend needs the prompted extra")
    from kluebook.prompting.echo_scores import ECHO_WINDOW
    from kluebook.prompting.server_lm import ServerLM

    if family == "WordPiece":
        lm, requests = plain_tiny_lm, requests_of(tiny_prompts(split_items), ("정치", "IT과학"))
    else:
        lm, requests = crossing_lm, requests_of(crossing_prompts())
    assert max(len(request.prompt) for request in requests) > ECHO_WINDOW  # a kept window, a digest
    server = VllmLikeServer(lm)
    try:
        served = ServerLM(server.base_url, "m", tmp_path / "c.sqlite").loglikelihoods(requests)
    finally:
        server.shutdown()
    local = lm.loglikelihoods(requests)
    for mine, theirs in zip(local, served, strict=True):
        assert theirs.logprobs == pytest.approx(mine.logprobs, abs=1e-4)
        assert theirs.crossings == mine.crossings
    # Each prompt was echoed alone, then with each of its answers.
    sent = [body["prompt"] for body in server.bodies]
    texts = [(r.prompt, *(r.prompt + c for c in r.continuations)) for r in requests]
    assert sorted(sent) == sorted(text for whole in texts for text in whole)
    assert all(b["echo"] and b["logprobs"] == 1 and b["max_tokens"] == 1 for b in server.bodies)
