"""How the server backend asks a server: the options of its requests (`ServerOptions`: timeout,
retries, concurrency, reask), checked from a run's parameters (`server_options`), and the API
key, read from the environment (`KLUEBOOK_OPENAI_API_KEY`, else `OPENAI_API_KEY`).

The key goes into the client alone: never into a request body, so never into the cache, a
record or an error message (`API_KEY_VARIABLES` tells the redaction of a run's files which
variables hold one).
"""

import os

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kluebook.common.errors import KluebookError
from kluebook.common.validation import first_problem

API_KEY_VARIABLES = ("KLUEBOOK_OPENAI_API_KEY", "OPENAI_API_KEY")
# Local servers take any key; the client insists on one.
NO_KEY = "none"


def api_key() -> str:
    return next((os.environ[v] for v in API_KEY_VARIABLES if os.environ.get(v)), NO_KEY)


class ServerOptions(BaseModel):
    """How requests are sent: they change no answer, so a run records them outside its
    fingerprint. Each field's description is its `kluebook run` option's help."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    timeout: float = Field(
        60.0, gt=0, description="seconds a request may take before it is tried again."
    )
    retries: int = Field(
        2,
        ge=0,
        description="tries after the first for a request that failed or was answered unusably "
        "(no content, no choices, no log-probabilities in rank mode), with exponential "
        "backoff; then the run fails in one line.",
    )
    concurrency: int = Field(4, ge=1, description="requests in flight at once, per run.")
    reask: bool = False  # ask every request again, whatever the cache holds (--force)

    def as_dict(self) -> dict:
        return self.model_dump()


DEFAULT_OPTIONS = ServerOptions()
# Each option's problem in one line (`server_options`).
PROBLEMS = {
    "timeout": "the request timeout must be a number of seconds > 0",
    "retries": "retries must be a whole number >= 0",
    "concurrency": "concurrency must be a whole number >= 1",
    "reask": "reask must be true or false",
}


def server_options(given: dict) -> ServerOptions:
    """`ServerOptions` from a run's `server_options` parameter, each value checked (one line)."""
    try:
        return ServerOptions.model_validate(given)
    except ValidationError as error:
        problem = first_problem(error)
        if problem.unknown:
            known = ", ".join(ServerOptions.model_fields)
            raise KluebookError(
                f"server_options: unknown option {problem.name!r}; known: {known}"
            ) from None
        raise KluebookError(f"{PROBLEMS[problem.name]}, got {problem.given!r}") from None
