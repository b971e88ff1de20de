"""How the server backend asks a server: the options of its requests (`ServerOptions`: timeout,
retries, concurrency, reask), checked from a run's parameters (`server_options`), and the API
key, read from the environment (`KLUEBOOK_OPENAI_API_KEY`, else `OPENAI_API_KEY`).

The key goes into the client alone: never into a request body, so never into the cache, a
record or an error message (`API_KEY_VARIABLES` tells the redaction of a run's files which
variables hold one).
"""

import os
from dataclasses import asdict, dataclass, fields

from kluebook.common.errors import KluebookError

API_KEY_VARIABLES = ("KLUEBOOK_OPENAI_API_KEY", "OPENAI_API_KEY")
# Local servers take any key; the client insists on one.
NO_KEY = "none"


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
