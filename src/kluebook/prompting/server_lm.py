"""Backend B: any OpenAI-compatible server (vLLM, TGI, llama.cpp, Ollama, `transformers serve`)
through the `openai` client and a base URL (the `prompted` extra).

Requests go out a few at a time (`ServerOptions.concurrency` threads; a notebook's running
event loop is no obstacle), each with a timeout and retries with exponential backoff
(`served_model.calling`). Every answer is kept in the response cache as it arrives, so a rerun
asks nothing and an interrupted sweep asks only what it had not answered;
`ServerOptions.reask` (`kluebook run --force`) asks every request again. How the server is
asked and with which key is `server_options`; which model it serves, `served_model`.

Only a usable answer is cached or scored: a response with no choices, no content, a body that
is not the API's JSON or, in rank mode, no log-probabilities is the server's error, retried like
a 5xx and then failed in one line.

Its `usage` counts every request, those answered from the cache among them, and their tokens:
in `generate` mode as the server reported them (its `usage`, kept in the cache with the answer;
a request whose answer has none is `uncounted`), in rank mode from the echoed tokens
(`echoed_usage`), which the cache keeps.

`generate` asks the chat endpoint (the server applies the model's chat template) or, with
`chat=False`, the completions endpoint with the plain prompt. Rank mode needs the
log-probabilities of the prompt's own tokens: the completions endpoint with `echo` and
`logprobs`, asked for the prompt alone and for the prompt with each answer, so that the echoed
tokens apply the rank rule (`echo_scores`) as the local backend does. A server that does
not give them is refused in one line that says `generate` works.
"""

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankRequest, RankScores, Usage
from kluebook.prompting.echo_scores import echoed_scores, echoed_tokens, echoed_usage
from kluebook.prompting.response_cache import DEFAULT_PATH, ResponseCache, request_key
from kluebook.prompting.served_model import UnusableAnswer, calling, open_client, served_by
from kluebook.prompting.server_options import DEFAULT_OPTIONS, ServerOptions
from kluebook.training.checkpoints import model_id


class ServerLM:
    """A model behind an OpenAI-compatible server, its answers cached on disk.

    `expected`: the identity the server reported for the model when the run was planned
    (`ServedModel.identity`); the server is asked again on opening, and a run that finds another
    model there fails rather than mix two models' answers.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        cache_path: Path = DEFAULT_PATH,
        chat: bool = True,
        options: ServerOptions = DEFAULT_OPTIONS,
        expected: str = "",
    ):
        self.model, self.chat, self.options = model, chat, options
        self.client = open_client(base_url, options)
        self.served = served_by(self.client, model, options)
        if expected and self.served.identity != expected:
            raise KluebookError(
                f"the server (--base-url) now runs another model as {model_id(model)!r} than "
                "when this run was planned: run the sweep again to ask it afresh"
            )
        self.cache = ResponseCache(cache_path)
        self.asked = 0  # requests sent to the server by this backend
        self.usage = Usage()

    def provenance(self) -> dict:
        """What a run record says about this backend (not its address, never its key)."""
        return {
            "backend": "openai-compatible server",
            "model": self.model,
            "endpoint": "chat" if self.chat else "completions",
            "served_model": self.served.as_dict(),
            "options": self.options.as_dict(),
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
        answers = self._answers(requests)
        told = [answer["usage"] for answer in answers if "usage" in answer]
        self.usage += Usage(
            prompt_tokens=sum(u["prompt_tokens"] for u in told),
            completion_tokens=sum(u["completion_tokens"] for u in told),
            uncounted=len(answers) - len(told),
        )
        return [answer["text"] for answer in answers]

    def loglikelihoods(self, requests: Sequence[RankRequest]) -> list[RankScores]:
        """The echoes of each prompt alone and with each of its answers, scored by the rank
        rule (`echoed_scores`)."""
        bodies = [
            {
                "endpoint": "completions",
                "prompt": text,
                "answer_from": len(request.prompt),  # where an answer starts (not sent)
                "echo": True,
                "logprobs": 1,
                "max_tokens": 1,
                "temperature": 0.0,
            }
            for request in requests
            for text in (request.prompt, *(request.prompt + a for a in request.continuations))
        ]
        echoes = iter(self._answers(bodies))
        scores = []
        for request in requests:
            prompt, wholes = next(echoes), [next(echoes) for _ in request.continuations]
            scores.append(echoed_scores(prompt, wholes))
            self.usage += echoed_usage(prompt, wholes)
        return scores

    def _answers(self, requests: list[dict]) -> list[dict]:
        """The answer of every request: from the cache (unless `reask`), else asked and kept
        as it arrives."""
        served = {"model": self.model, "served_model": self.served.identity}
        keys = [request_key({**served, **request}) for request in requests]
        answers = [None if self.options.reask else self.cache.get(key) for key in keys]
        missing = [i for i, answer in enumerate(answers) if answer is None]
        self.usage += Usage(len(requests), len(requests) - len(missing))
        if not missing:
            return answers
        failure = None
        with ThreadPoolExecutor(self.options.concurrency) as pool:
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
        """One request sent (tried again while its answer is unusable); its answer as the cache
        keeps it. Errors in one line."""
        return calling(self.model, self.options, lambda: self._answer_of(request))

    def _answer_of(self, request: dict) -> dict:
        body = {k: v for k, v in request.items() if k not in ("endpoint", "answer_from")}
        if request["endpoint"] == "chat":
            response = self.client.chat.completions.create(model=self.model, **body)
            message = getattr(_first_choice(response), "message", None)
            text = getattr(message, "content", None)
            if not isinstance(text, str):
                raise UnusableAnswer("an answer with no content")
            return {"text": text, **_reported(response)}
        response = self.client.completions.create(model=self.model, **body)
        choice = _first_choice(response)
        if "answer_from" not in request:
            if not isinstance(getattr(choice, "text", None), str):
                raise UnusableAnswer("an answer with no text")
            return {"text": choice.text, **_reported(response)}
        echo = echoed_tokens(
            getattr(choice, "logprobs", None),
            request["answer_from"],
            getattr(response, "usage", None),
        )
        if echo is None:
            raise UnusableAnswer(
                f"no token log-probabilities for {model_id(self.model)!r} (completions with "
                "echo and logprobs), which rank mode needs; mode 'generate' works with a "
                "server that gives none"
            )
        return echo


def _first_choice(response):
    choices = getattr(response, "choices", None)
    if not choices:
        raise UnusableAnswer("an answer with no choices")
    return choices[0]


def _reported(response) -> dict:
    """The tokens the server says a response read and wrote, where it says both."""
    usage = getattr(response, "usage", None)
    told = {k: getattr(usage, k, None) for k in ("prompt_tokens", "completion_tokens")}
    return {"usage": told} if all(isinstance(v, int) for v in told.values()) else {}
