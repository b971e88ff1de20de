"""`transformers serve` over a local model folder, on a free loopback port: a real
OpenAI-compatible server for the server backend without any other software (the `prompted`
extra holds what it needs). The tests and the throughput benchmark start one over the tiny
causal LM; a user can serve any local causal LM the same way.
"""

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.prompting.server_options import API_KEY_VARIABLES

LISTENING = re.compile(r"Uvicorn running on http://127\.0\.0\.1:(\d+)")


class TransformersServer:
    """A `transformers serve` process pinned to `folder`, its log written to `log`.

    Started on creation; the model name its requests take is `str(folder)`.
    """

    def __init__(self, folder: Path, log: Path, device: str = "cpu"):
        command = [sys.executable, "-m", "transformers.cli.transformers", "serve", str(folder)]
        command += ["--host", "127.0.0.1", "--port", "0", "--device", device, "--log-level", "info"]
        # No API key reaches the server's environment (and so its log).
        env = {k: v for k, v in os.environ.items() if k not in API_KEY_VARIABLES}
        env["HF_HUB_OFFLINE"] = "1"
        self.folder, self.port = folder, None
        # Open for the server's lifetime: closed when its output ends.
        self._log = Path(log).open("w", encoding="utf-8")  # noqa: SIM115
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        for line in self.process.stdout:  # its start-up, up to the line that names its port
            self._log.write(line)
            if match := LISTENING.search(line):
                self.port = int(match.group(1))
                break
        if self.port is None:
            self.stop()
            self._log.close()
            raise KluebookError(f"transformers serve did not start over {folder}: see {log}")
        # Keep reading its log, so that a full pipe never stalls it.
        threading.Thread(target=self._drain, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _drain(self) -> None:
        for line in self.process.stdout:
            self._log.write(line)
        self._log.close()

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()

    def __enter__(self) -> "TransformersServer":
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()
