"""What no file a run leaves may hold: the API keys of the environment, the address and
credentials of the run's server, the run's own folders and this machine's paths. A run's
`Redaction` is made once and applied to its log, its notebook and its failure (`describe_error`),
so a record, failed or not, is safe to commit and publish."""

import base64
import json
import os
import traceback
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from kluebook.common.paths import scrub
from kluebook.prompting.server_options import API_KEY_VARIABLES
from kluebook.recording.kept_notebook import run_paths
from kluebook.recording.provenance import SERVER

# How a record or a notebook a run leaves shows an API key or a server's credentials.
API_KEY = "<api key>"
CREDENTIALS = "<credentials>"


def secrets(base_url: str) -> list[tuple[str, str]]:
    """(text, what to show instead), longest first: what no file a run leaves may hold. The API
    keys of this environment, and the address and credentials of the run's server."""
    pairs = {os.environ[name]: API_KEY for name in API_KEY_VARIABLES if os.environ.get(name)}
    if base_url and base_url != SERVER:
        pairs.update(server_forms(base_url))
    return sorted(((t, s) for t, s in pairs.items() if t), key=lambda pair: -len(pair[0]))


def server_forms(base_url: str) -> dict[str, str]:
    """The forms in which an error may give a server's URL: as a whole, its host and port, its
    host; and its credentials, as written, decoded, and as the Basic authorization sent."""
    forms = {base_url.rstrip("/"): SERVER}
    try:
        url = urlsplit(base_url)
        host, user, password = url.hostname or "", url.username or "", url.password or ""
    except ValueError:  # no URL: only its whole text can be told
        return forms
    userinfo, _, address = url.netloc.rpartition("@")
    forms.update({url.netloc: SERVER, address: SERVER, host: SERVER})
    if userinfo:
        basic = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
        for credential in (userinfo, basic, password, unquote(password)):
            forms[credential] = CREDENTIALS
    return forms


@dataclass(frozen=True)
class Redaction:
    """What no file a run leaves may hold, and what shows instead: the run's `secrets`, its own
    folders (`run_paths`), then this machine's paths (`scrub`). Made once per run (`of`)."""

    pairs: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, parameters: dict) -> "Redaction":
        """The redaction of a run with these notebook parameters."""
        own = run_paths(parameters["model"], parameters.get("data_dir") or "")
        return cls((*secrets(parameters.get("base_url") or ""), *own))

    def __call__(self, text: str, in_json: bool = False) -> str:
        """`text` redacted; `in_json`: as its secrets are written inside a JSON string (a
        notebook's text)."""
        for hidden, shown in self.pairs:
            if in_json:
                hidden, shown = (json.dumps(t, ensure_ascii=False)[1:-1] for t in (hidden, shown))
            text = text.replace(hidden, shown)
        return scrub(text)


def describe_error(error: BaseException, parameters: dict) -> tuple[str, str]:
    """The one-line error and the short traceback that a failed run's record keeps (it may be
    committed and published), redacted (`Redaction`) whatever raised it."""
    redact = Redaction.of(parameters)
    lines = str(error).strip().splitlines()
    return (
        redact(f"{type(error).__name__}: {lines[-1] if lines else ''}"),
        redact("".join(traceback.format_exception(error, limit=5))),
    )
