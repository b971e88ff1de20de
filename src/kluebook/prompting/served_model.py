"""How a server is reached and which model it serves: its `openai` client (`open_client`),
every call to it tried again while its answer is unusable and its errors turned into one line
(`calling`), and the model it reports at `/v1/models` (`served_model`, `ask_served_model`).

No error names the server's address or repeats what the server wrote back (a 401 may echo the
key): it says what kind of problem the server had. The model is the one the server reports
under `model` at `/v1/models`: the fields there that tell one model from another make its
identity, which keys the cache and the run's fingerprint, so a server restarted with another
model under the same name is asked again.
"""

import hashlib
import json
import time
from dataclasses import asdict, dataclass

from kluebook.common.errors import KluebookError
from kluebook.prompting.server_options import DEFAULT_OPTIONS, ServerOptions, api_key
from kluebook.training.checkpoints import model_id

# Fields of a `/v1/models` entry that tell one model from another behind the same name (vLLM's
# `root` is the weights it loaded; a revision or digest where a server reports one).
IDENTITY_FIELDS = ("root", "parent", "revision", "model_revision", "digest", "sha", "commit")
# A `created` stamp this close to the server's answer is its clock (vLLM, llama.cpp stamp each
# listing), not the date of the model, and says nothing of which model it is.
CLOCK_STAMP_S = 600


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
    return served_by(open_client(base_url, options), model, options)


def served_by(client, model: str, options: ServerOptions) -> ServedModel:
    """`served_model` of `model` on the server of `client`."""

    def listed() -> ServedModel:
        listing = client.models.list()
        entries = [entry.model_dump() for entry in getattr(listing, "data", None) or []]
        return served_model(entries, model, time.time())

    return calling(model, options, listed)


def calling(model: str, options: ServerOptions, call):
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
