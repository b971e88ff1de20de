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
`logprobs`. A server that does not give them is refused in one line that says `generate` works.
"""

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from kluebook.errors import KluebookError
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

    def loglikelihoods(self, requests: Sequence[tuple[str, str]]) -> list[float]:
        bodies = [
            {
                "endpoint": "completions",
                "prompt": prompt + answer,
                "answer_from": len(prompt),  # where the scored text starts (not sent)
                "echo": True,
                "logprobs": 1,
                "max_tokens": 1,
                "temperature": 0.0,
            }
            for prompt, answer in requests
        ]
        return [answer["logprob"] for answer in self._answers(bodies)]

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
        score = echoed_logprob(
            response.choices[0].logprobs, request["answer_from"], len(body["prompt"])
        )
        if score is None:
            raise KluebookError(
                f"the server at {self.base_url} gives no token log-probabilities for "
                f"{self.model!r} (completions with echo and logprobs): rank mode needs them; "
                "mode 'generate' works with this server"
            )
        return {"logprob": score}


def echoed_logprob(logprobs, start: int, end: int) -> float | None:
    """The sum of the echoed log-probabilities of the prompt's tokens that start within
    `prompt[start:end]` (the answer); None when the response carries none for them."""
    offsets = getattr(logprobs, "text_offset", None) or []
    values = getattr(logprobs, "token_logprobs", None) or []
    scored = [v for o, v in zip(offsets, values, strict=False) if start <= o < end]
    if not scored or any(value is None for value in scored):
        return None
    return float(sum(scored))
