"""Backend B: any OpenAI-compatible server (vLLM, TGI, llama.cpp, Ollama, `transformers serve`)
through the `openai` client and a base URL (the `prompted` extra).

Requests go out a few at a time (`concurrency` threads; a notebook's running event loop is no
obstacle), each with a timeout and the client's retries with exponential backoff. Every answer
is kept in the response cache as it arrives, so a rerun asks nothing and an interrupted sweep
asks only what it had not answered. The API key is read from the environment
(`KLUEBOOK_OPENAI_API_KEY`, else `OPENAI_API_KEY`) and goes into the client alone: never into a
request body, so never into the cache, a record or an error message.

`generate` asks the chat endpoint (the server applies the model's chat template) or, with
`chat=False`, the completions endpoint with the plain prompt. Rank mode needs the
log-probabilities of the prompt's own tokens: the completions endpoint with `echo` and
`logprobs`, asked for the prompt alone and for the prompt with each answer, so that the echoed
tokens apply the rank rule (`conditioning_length`) as the local backend does. A server that does
not give them is refused in one line that says `generate` works.
"""

import hashlib
import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from kluebook.errors import KluebookError
from kluebook.prompting.answering import RankScores, conditioning_length
from kluebook.prompting.response_cache import DEFAULT_PATH, ResponseCache, request_key

API_KEY_VARIABLES = ("KLUEBOOK_OPENAI_API_KEY", "OPENAI_API_KEY")
# Local servers take any key; the client insists on one.
NO_KEY = "none"


def api_key() -> str:
    return next((os.environ[v] for v in API_KEY_VARIABLES if os.environ.get(v)), NO_KEY)


class ServerLM:
    """A model behind an OpenAI-compatible server, its answers cached on disk."""

    def __init__(
        self,
        base_url: str,
        model: str,
        cache_path: Path = DEFAULT_PATH,
        chat: bool = True,
        concurrency: int = 4,
        timeout: float = 120.0,
        max_retries: int = 3,
    ):
        try:
            import openai
        except ImportError:
            raise KluebookError(
                "the server backend needs the openai client: pip install 'kluebook[prompted]'"
            ) from None
        self.base_url, self.model, self.chat, self.concurrency = base_url, model, chat, concurrency
        self._openai = openai
        self.client = openai.OpenAI(
            base_url=base_url, api_key=api_key(), timeout=timeout, max_retries=max_retries
        )
        self.cache = ResponseCache(cache_path)
        self.asked = 0  # requests sent to the server by this backend
        self.reused = 0  # requests answered from the cache

    def provenance(self) -> dict:
        """What a run record says about this backend (not its address, never its key)."""
        return {
            "backend": "openai-compatible server",
            "model": self.model,
            "endpoint": "chat" if self.chat else "completions",
        }

    def model_input(self, text: str) -> str:
        return text  # the server applies the model's chat template on its chat endpoint

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> list[str]:
        decoding = {"max_tokens": max_new_tokens, "temperature": 0.0}
        if self.chat:
            requests = [
                {"endpoint": "chat", "messages": [{"role": "user", "content": p}], **decoding}
                for p in prompts
            ]
        else:
            requests = [{"endpoint": "completions", "prompt": p, **decoding} for p in prompts]
        return [answer["text"] for answer in self._answers(requests)]

    def loglikelihoods(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[RankScores]:
        """The echoes of each prompt alone and with each of its answers, scored by the rank
        rule (`echoed_scores`)."""
        bodies = [
            {
                "endpoint": "completions",
                "prompt": text,
                "answer_from": len(prompt),  # where an answer starts (not sent)
                "echo": True,
                "logprobs": 1,
                "max_tokens": 1,
                "temperature": 0.0,
            }
            for prompt, answers in requests
            for text in (prompt, *(prompt + answer for answer in answers))
        ]
        echoes = iter(self._answers(bodies))
        return [
            echoed_scores(next(echoes), [next(echoes) for _ in answers]) for _, answers in requests
        ]

    def _answers(self, requests: list[dict]) -> list[dict]:
        """The answer of every request: from the cache, else asked and kept as it arrives."""
        keys = [request_key({"model": self.model, **request}) for request in requests]
        answers = [self.cache.get(key) for key in keys]
        missing = [i for i, answer in enumerate(answers) if answer is None]
        self.reused += len(requests) - len(missing)
        if not missing:
            return answers
        failure = None
        with ThreadPoolExecutor(self.concurrency) as pool:
            futures = {pool.submit(self._ask, requests[i]): i for i in missing}
            for future in as_completed(futures):
                if future.cancelled():
                    continue
                self.asked += 1
                if future.exception() is None:
                    index = futures[future]
                    answers[index] = future.result()
                    self.cache.put(keys[index], answers[index])
                elif failure is None:  # the first error stops the sweep; answers in flight are kept
                    failure = future.exception()
                    for other in futures:
                        other.cancel()
        if failure is not None:
            raise failure
        return answers

    def _ask(self, request: dict) -> dict:
        """One request sent; its answer as the cache keeps it. Errors in one line."""
        openai = self._openai
        body = {k: v for k, v in request.items() if k not in ("endpoint", "answer_from")}
        try:
            if request["endpoint"] == "chat":
                response = self.client.chat.completions.create(model=self.model, **body)
                return {"text": response.choices[0].message.content or ""}
            response = self.client.completions.create(model=self.model, **body)
        except (openai.APIConnectionError, openai.APITimeoutError) as error:
            raise KluebookError(
                f"the server at {self.base_url} does not answer ({type(error).__name__}): "
                "is it running, and is that its address?"
            ) from None
        except openai.NotFoundError:
            raise KluebookError(
                f"the server at {self.base_url} has no {request['endpoint']} endpoint or no "
                f"model {self.model!r}"
            ) from None
        except openai.APIStatusError as error:
            detail = " ".join(str(error.message).split())[:200]
            raise KluebookError(
                f"the server at {self.base_url} refused a request ({error.status_code}): {detail}"
            ) from None
        if "answer_from" not in request:
            return {"text": response.choices[0].text}
        choice = response.choices[0]
        echo = echoed_tokens(choice.logprobs, request["answer_from"], response.usage)
        if echo is None:
            raise KluebookError(
                f"the server at {self.base_url} gives no token log-probabilities for "
                f"{self.model!r} (completions with echo and logprobs): rank mode needs them; "
                "mode 'generate' works with this server"
            )
        return echo


# Of an echo, a rank answer keeps the tokens from this many characters before the answer (far
# more than a token spans) and a digest of those before: the rank rule needs no more.
ECHO_WINDOW = 128


def echoed_tokens(logprobs, answer_from: int, usage=None) -> dict | None:
    """What the cache keeps of an echo (completions with `echo`, `logprobs` and `max_tokens`
    1): the tokens of the text sent from `ECHO_WINDOW` characters before `answer_from` (by
    their `text_offset`), their log-probabilities, and how many came before and their digest.
    The text sent is `usage.prompt_tokens` tokens long where the server says, else all but the
    one generated. None when the echo carries no log-probability for a token it must."""
    tokens = list(getattr(logprobs, "tokens", None) or [])
    values = list(getattr(logprobs, "token_logprobs", None) or [])
    offsets = list(getattr(logprobs, "text_offset", None) or [])
    sent = getattr(usage, "prompt_tokens", None) or len(tokens) - 1
    if not 0 < sent <= len(tokens) or len(values) != len(tokens) or len(offsets) != len(tokens):
        return None
    start = next((i for i in range(sent) if offsets[i] >= answer_from - ECHO_WINDOW), sent)
    if any(not isinstance(value, int | float) for value in values[max(start, 1) : sent]):
        return None  # the first token has none: nothing comes before it
    before = hashlib.sha256(json.dumps(tokens[:start]).encode()).hexdigest()
    return {
        "before": [start, before],
        "tokens": tokens[start:sent],
        "logprobs": values[start:sent],
    }


def echoed_scores(prompt: dict, wholes: list[dict]) -> RankScores:
    """The rank rule on the kept echoes of a prompt and of its whole texts (prompt and answer):
    each answer's score is the sum of its whole text's log-probabilities after the tokens all
    share."""
    if any(whole["before"] != prompt["before"] for whole in wholes):
        raise KluebookError(
            f"the echoed tokens of a prompt and its answers differ more than {ECHO_WINDOW} "
            "characters before the answer: rank mode cannot score them"
        )
    length, crossings = conditioning_length(prompt["tokens"], [w["tokens"] for w in wholes])
    return RankScores([float(sum(w["logprobs"][length:])) for w in wholes], crossings)
