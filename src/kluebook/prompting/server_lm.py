"""Backend B: any OpenAI-compatible server (vLLM, TGI, llama.cpp, Ollama, `transformers serve`)
through the `openai` client and a base URL (the `prompted` extra).

Requests go out a few at a time (`ServerOptions.concurrency` threads; a notebook's running
event loop is no obstacle), each with a timeout and retries with exponential backoff. Every
answer is kept in the response cache as it arrives, so a rerun asks nothing and an interrupted
sweep asks only what it had not answered; `ServerOptions.reask` (`kluebook run --force`) asks
every request again. The API key is read from the environment (`KLUEBOOK_OPENAI_API_KEY`, else
`OPENAI_API_KEY`) and goes into the client alone: never into a request body, so never into the
cache, a record or an error message. No error names the server's address or repeats what the
server wrote back (a 401 may echo the key): it says what kind of problem the server had.

Only a usable answer is cached or scored: a response with no choices, no content, a body that
is not the API's JSON or, in rank mode, no log-probabilities is the server's error, retried like
a 5xx and then failed in one line.

The model is the one the server reports under `model` at `/v1/models` (`served_model`): the
fields there that tell one model from another make its identity, which keys the cache and the
run's fingerprint, so a server restarted with another model under the same name is asked again.

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
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import RankScores, conditioning_length
from kluebook.prompting.response_cache import DEFAULT_PATH, ResponseCache, request_key
from kluebook.training.checkpoints import model_id

API_KEY_VARIABLES = ("KLUEBOOK_OPENAI_API_KEY", "OPENAI_API_KEY")
# Local servers take any key; the client insists on one.
NO_KEY = "none"
# Fields of a `/v1/models` entry that tell one model from another behind the same name (vLLM's
# `root` is the weights it loaded; a revision or digest where a server reports one).
IDENTITY_FIELDS = ("root", "parent", "revision", "model_revision", "digest", "sha", "commit")
# A `created` stamp this close to the server's answer is its clock (vLLM, llama.cpp stamp each
# listing), not the date of the model, and says nothing of which model it is.
CLOCK_STAMP_S = 600


def api_key() -> str:
    return next((os.environ[v] for v in API_KEY_VARIABLES if os.environ.get(v)), NO_KEY)


@dataclass(frozen=True)
class ServerOptions:
    """How requests are sent: they change no answer, so a run records them outside its
    fingerprint."""

    timeout: float = 60.0  # seconds a request may take before it is tried again
    retries: int = 2  # tries after the first, for a request the server did not answer usably
    concurrency: int = 4  # requests in flight at once
    reask: bool = False  # ask every request again, whatever the cache holds (--force)

    def as_dict(self) -> dict:
        return asdict(self)


DEFAULT_OPTIONS = ServerOptions()


def server_options(given: dict) -> ServerOptions:
    """`ServerOptions` from a run's `server_options` parameter, each value checked (one line)."""
    known = [f.name for f in fields(ServerOptions)]
    for name in given:
        if name not in known:
            raise KluebookError(
                f"server_options: unknown option {name!r}; known: {', '.join(known)}"
            )
    options = ServerOptions(**given)
    if not (isinstance(options.timeout, int | float) and options.timeout > 0):
        raise KluebookError(
            f"the request timeout must be a number of seconds > 0, got {options.timeout!r}"
        )
    for name, least in (("retries", 0), ("concurrency", 1)):
        value = getattr(options, name)
        if type(value) is not int or value < least:
            raise KluebookError(f"{name} must be a whole number >= {least}, got {value!r}")
    if type(options.reask) is not bool:
        raise KluebookError(f"reask must be true or false, got {options.reask!r}")
    return options


class UnusableAnswer(Exception):
    """The server answered, but not with something a run can score: tried again, then failed."""


@dataclass(frozen=True)
class ServedModel:
    """What the server reported of a model at `/v1/models`: whether it listed it, and the
    digest of the fields that identify it (`IDENTITY_FIELDS`, a real creation stamp)."""

    listed: bool
    identity: str
    created: int | None = None

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


def served_model(entries: list[dict], model: str, now: float) -> ServedModel:
    """The model `model` as a `/v1/models` listing (`entries`, at time `now`) reports it."""
    entry = next((e for e in entries if e.get("id") == model), None)
    if entry is None:  # some servers list a model only once it is loaded
        return ServedModel(False, _digest({}))
    facts = {name: entry[name] for name in IDENTITY_FIELDS if entry.get(name) not in (None, "")}
    stamp = entry.get("created")
    created = stamp if isinstance(stamp, int) and 0 < stamp < now - CLOCK_STAMP_S else None
    if created is not None:
        facts["created"] = created
    return ServedModel(True, _digest(facts), created)


def _digest(facts: dict) -> str:
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:16]


def open_client(base_url: str, options: ServerOptions):
    """The `openai` client of a server, with the options' timeout and retries."""
    try:
        import openai
    except ImportError:
        raise KluebookError(
            "the server backend needs the openai client: pip install 'kluebook[prompted]'"
        ) from None
    return openai.OpenAI(
        base_url=base_url, api_key=api_key(), timeout=options.timeout, max_retries=options.retries
    )


def ask_served_model(base_url: str, model: str, options: ServerOptions = DEFAULT_OPTIONS):
    """`served_model` of `model` on the server at `base_url`: its `/v1/models` asked once."""
    return _served_by(open_client(base_url, options), model, options)


def _served_by(client, model: str, options: ServerOptions) -> ServedModel:
    def listed() -> ServedModel:
        listing = client.models.list()
        entries = [entry.model_dump() for entry in getattr(listing, "data", None) or []]
        return served_model(entries, model, time.time())

    return _calling(model, options, listed)


def _calling(model: str, options: ServerOptions, call):
    """`call()`, the client's errors turned into one line that names no address and repeats
    nothing the server wrote; an unusable answer tried again, up to `options.retries` times."""
    import openai

    for attempt in range(options.retries + 1):
        try:
            return call()
        except (openai.APIConnectionError, openai.APITimeoutError) as error:
            raise KluebookError(
                f"the server (--base-url) does not answer ({type(error).__name__}, "
                f"{_tries(options)} of up to {options.timeout:g} s): is it running, "
                "and is that its address?"
            ) from None
        except openai.AuthenticationError:
            raise KluebookError(
                "the server (--base-url) refused the API key (401): set KLUEBOOK_OPENAI_API_KEY "
                "(or OPENAI_API_KEY) to a key it accepts"
            ) from None
        except openai.NotFoundError:
            raise KluebookError(
                f"the server (--base-url) has no such endpoint or no model {model_id(model)!r} "
                "(404)"
            ) from None
        except openai.APIStatusError as error:
            raise KluebookError(
                f"the server (--base-url) refused a request ({error.status_code}"
                f"{_reason(error.status_code)}); what it wrote back is not repeated here"
            ) from None
        except (json.JSONDecodeError, openai.APIResponseValidationError) as error:
            problem: Exception = UnusableAnswer(
                f"a body that is not the API's JSON ({type(error).__name__})"
            )
        except UnusableAnswer as error:
            problem = error
        if attempt < options.retries:
            time.sleep(min(8.0, 0.5 * 2**attempt))
    raise KluebookError(
        f"the server (--base-url) gave no usable answer in {_tries(options)}: "
        f"{problem}; nothing of it is kept, so a rerun asks again"
    )


def _tries(options: ServerOptions) -> str:
    return "1 try" if options.retries == 0 else f"{options.retries + 1} tries"


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return f" {HTTPStatus(status).phrase}"
    except ValueError:
        return ""


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
        self.served = _served_by(self.client, model, options)
        if expected and self.served.identity != expected:
            raise KluebookError(
                f"the server (--base-url) now runs another model as {model_id(model)!r} than "
                "when this run was planned: run the sweep again to ask it afresh"
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
        """The answer of every request: from the cache (unless `reask`), else asked and kept
        as it arrives."""
        served = {"model": self.model, "served_model": self.served.identity}
        keys = [request_key({**served, **request}) for request in requests]
        answers = [None if self.options.reask else self.cache.get(key) for key in keys]
        missing = [i for i, answer in enumerate(answers) if answer is None]
        self.reused += len(requests) - len(missing)
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
        return _calling(self.model, self.options, lambda: self._answer_of(request))

    def _answer_of(self, request: dict) -> dict:
        body = {k: v for k, v in request.items() if k not in ("endpoint", "answer_from")}
        if request["endpoint"] == "chat":
            response = self.client.chat.completions.create(model=self.model, **body)
            message = getattr(_first_choice(response), "message", None)
            text = getattr(message, "content", None)
            if not isinstance(text, str):
                raise UnusableAnswer("an answer with no content")
            return {"text": text}
        response = self.client.completions.create(model=self.model, **body)
        choice = _first_choice(response)
        if "answer_from" not in request:
            if not isinstance(getattr(choice, "text", None), str):
                raise UnusableAnswer("an answer with no text")
            return {"text": choice.text}
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
