"""The server backend's answers on disk: one SQLite file, one row per request.

A row's key is the SHA-256 of the request as sent, less its transport (the endpoint, the model
name, the prompt and every decoding setting, canonical JSON), so the same question asked of the
same model is answered once: a rerun asks nothing, and an interrupted sweep resumes with the
requests it had not yet answered. Each answer is committed as it arrives (an SQLite transaction:
whole or absent, never half written). The API key is part of no request body, so it never
reaches the file.
"""

import hashlib
import json
import sqlite3
from pathlib import Path

from kluebook.errors import KluebookError
from kluebook.paths import CACHE

DEFAULT_PATH = CACHE / "prompting" / "responses.sqlite"


def request_key(request: dict) -> str:
    """The cache key of a request: a digest of its canonical JSON."""
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class ResponseCache:
    """Answers by request key. Used from one thread; several processes may share the file."""

    def __init__(self, path: Path = DEFAULT_PATH):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=60)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, answer TEXT NOT NULL)"
            )
            self._db.commit()
        except sqlite3.DatabaseError as error:
            raise KluebookError(
                f"{self.path}: not a readable response cache ({error}): remove it to start afresh"
            ) from None

    def get(self, key: str) -> dict | None:
        row = self._db.execute("SELECT answer FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, answer: dict) -> None:
        with self._db:  # one transaction: committed, or rolled back on error
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, answer) VALUES (?, ?)",
                (key, json.dumps(answer, ensure_ascii=False)),
            )

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self._db.close()
