"""Servers for the tests of the server backend.

- `CountingProxy`: a relay in front of a real OpenAI-compatible server that counts what it is
  asked: the tests see every request, its API key, and can cut the server mid-sweep; with an
  `alias` it serves the upstream's model under another name, reporting which weights it loaded
  at `/v1/models` as vLLM does (`root`), so two models can be served under one name in turn.
- `ScriptedServer`: a fake server that answers every request with the body a test gives it
  (the shapes of a broken server), counting the requests.
- `KeyEchoingServer`: a server that lists its models but refuses every request, echoing the
  key it was sent in its error, as some hosted APIs do.
"""

import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kluebook.prompting.local_server import TransformersServer


class LoopbackServer(ThreadingHTTPServer):
    """An HTTP server on a free loopback port, serving `handler` from a thread of its own (a
    subclass sets what its handler reads before it starts); `base_url` is its
    OpenAI-compatible address."""

    def __init__(self, handler):
        super().__init__(("127.0.0.1", 0), handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class CountingProxy(LoopbackServer):
    """Relays every request to `upstream`'s port and keeps what it saw; after `cut_after`
    answers it kills the upstream server. A request it cannot relay gets no answer at all."""

    def __init__(self, upstream: TransformersServer, cut_after: int | None = None, alias: str = ""):
        self.upstream, self.cut_after, self.alias = upstream, cut_after, alias
        self.lock = threading.Lock()
        self.answered: list[dict] = []  # bodies of the requests the server answered
        self.received = 0  # requests that reached the proxy, answered or not
        self.authorizations: set[str] = set()
        super().__init__(RelayHandler)

    def listing(self) -> dict:
        """`/v1/models` as vLLM writes it for a model served under the alias."""
        entry = {"id": self.alias, "object": "model", "created": int(time.time())}
        return {"object": "list", "data": [{**entry, "root": str(self.upstream.folder)}]}


class JsonHandler(BaseHTTPRequestHandler):
    """A handler that answers in JSON and logs nothing."""

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


class RelayHandler(JsonHandler):
    def do_GET(self):
        proxy = self.server
        if proxy.alias and self.path.endswith("/models"):
            self._send(200, json.dumps(proxy.listing()).encode())
            return
        self._relay("GET", None)

    def do_POST(self):
        proxy = self.server
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with proxy.lock:
            proxy.received += 1
            proxy.authorizations.add(self.headers.get("Authorization", ""))
        request = json.loads(body)
        if proxy.alias and request.get("model") == proxy.alias:
            body = json.dumps({**request, "model": str(proxy.upstream.folder)}).encode()
        status = self._relay("POST", body)
        with proxy.lock:
            if status == 200:
                proxy.answered.append(request)
            if proxy.cut_after is not None and len(proxy.answered) == proxy.cut_after:
                proxy.upstream.stop()

    def _relay(self, method: str, body: bytes | None) -> int | None:
        try:
            upstream = http.client.HTTPConnection(
                "127.0.0.1", self.server.upstream.port, timeout=120
            )
            headers = {"Content-Type": "application/json"} if body is not None else {}
            upstream.request(method, self.path, body=body, headers=headers)
            response = upstream.getresponse()
            payload = response.read()
        except OSError:
            self.close_connection = True  # the server is gone: the client hears nothing
            return None
        self._send(response.status, payload)
        return response.status


class ScriptedServer(LoopbackServer):
    """Answers `/v1/models` with `models` and every POST with `status` and `body` (bytes, as
    sent), both settable while it runs; counts the POSTs."""

    def __init__(self, models: list[dict], body: bytes = b"{}", status: int = 200):
        self.models, self.body, self.status = models, body, status
        self.posts = 0
        super().__init__(ScriptedHandler)


class ScriptedHandler(JsonHandler):
    def do_GET(self):
        self._send(200, json.dumps({"object": "list", "data": self.server.models}).encode())

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.server.posts += 1
        self._send(self.server.status, self.server.body)


def prompt_of(body: dict) -> str:
    return body["messages"][0]["content"] if "messages" in body else body["prompt"]


class KeyEchoingServer(LoopbackServer):
    """A server that lists its models to anyone but refuses every other request with 401 and an
    error whose message echoes the API key it was sent, as OpenAI's does (`Incorrect API key
    provided: sk-…`); `keys`: the keys it was sent."""

    def __init__(self):
        self.keys: set[str] = set()
        super().__init__(EchoingHandler)


class EchoingHandler(JsonHandler):
    def do_GET(self):
        listing = {"object": "list", "data": [{"id": "echo-model", "object": "model"}]}
        self._send(200, json.dumps(listing).encode())

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        self.server.keys.add(key)
        error = {"message": f"Incorrect API key provided: {key}", "code": "invalid_api_key"}
        self._send(401, json.dumps({"error": error}).encode())
