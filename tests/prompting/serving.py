"""A relay in front of a real OpenAI-compatible server that counts what it is asked: the
tests of the server backend see every request, its API key, and can cut the server mid-sweep.
And a server that refuses every key, echoing it in its error."""

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kluebook.prompting.local_server import TransformersServer


class CountingProxy(ThreadingHTTPServer):
    """Relays every request to `upstream`'s port and keeps what it saw; after `cut_after`
    answers it kills the upstream server. A request it cannot relay gets no answer at all."""

    def __init__(self, upstream: TransformersServer, cut_after: int | None = None):
        super().__init__(("127.0.0.1", 0), RelayHandler)
        self.upstream, self.cut_after = upstream, cut_after
        self.lock = threading.Lock()
        self.answered: list[dict] = []  # bodies of the requests the server answered
        self.received = 0  # requests that reached the proxy, answered or not
        self.authorizations: set[str] = set()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class RelayHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        proxy = self.server
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with proxy.lock:
            proxy.received += 1
            proxy.authorizations.add(self.headers.get("Authorization", ""))
        try:
            upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream.port, timeout=120)
            headers = {"Content-Type": "application/json"}
            upstream.request("POST", self.path, body=body, headers=headers)
            response = upstream.getresponse()
            payload = response.read()
        except OSError:
            self.close_connection = True  # the server is gone: the client hears nothing
            return
        self.send_response(response.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        with proxy.lock:
            if response.status == 200:
                proxy.answered.append(json.loads(body))
            if proxy.cut_after is not None and len(proxy.answered) == proxy.cut_after:
                proxy.upstream.stop()

    def log_message(self, *args):
        pass


def prompt_of(body: dict) -> str:
    return body["messages"][0]["content"] if "messages" in body else body["prompt"]


class KeyEchoingServer(ThreadingHTTPServer):
    """A server that refuses every request with 401 and an error whose message echoes the API
    key it was sent, as OpenAI's does (`Incorrect API key provided: sk-…`); `keys`: the keys
    it was sent."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), EchoingHandler)
        self.keys: set[str] = set()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class EchoingHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        self.server.keys.add(key)
        error = {"message": f"Incorrect API key provided: {key}", "code": "invalid_api_key"}
        payload = json.dumps({"error": error}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass
