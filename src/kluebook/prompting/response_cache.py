"""The server backend's answers on disk: one SQLite file, one row per request.

A row's key is the SHA-256 of the request as sent, less its transport (the endpoint, the model
name and the identity the server reported for it, the prompt and every decoding setting,
canonical JSON), so the same question asked of the same model is answered once: a rerun asks
nothing, and an interrupted sweep resumes with the requests it had not yet answered. Each
answer is committed as it arrives (an SQLite transaction: whole or absent, never half
written), and only an answer the backend found usable is ever put here. The API key is part
of no request body, so it never reaches the file.

A file damaged anywhere (not only in its header) is found when it is opened, by SQLite's own
check of every page, and refused in one line that names it and says what to do.
"""

import hashlib
import json
import sqlite3
from pathlib import Path

from kluebook.common.errors import KluebookError
from kluebook.common.paths import CACHE

DEFAULT_PATH = CACHE / "prompting" / "responses.sqlite"


def request_key(request: dict) -> str:
    """The cache key of a request: a digest of its canonical JSON."""
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def unreadable(path: Path, problem: str) -> KluebookError:
    return KluebookError(
        f"{path}: not a readable response cache ({problem}): remove it to start afresh "
        "(its answers are asked again)"
    )


class ResponseCache:
    """Answers by request key. Used from one thread; several processes may share the file."""

    def __init__(self, path: Path = DEFAULT_PATH):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=60)
            found = self._db.execute("PRAGMA quick_check").fetchone()[0]
            if found != "ok":
                raise sqlite3.DatabaseError(" ".join(found.split())[:80])
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, answer TEXT NOT NULL)"
            )
            self._db.commit()
        except sqlite3.DatabaseError as error:
            raise unreadable(self.path, str(error)) from None

    def get(self, key: str) -> dict | None:
        try:
            row = self._db.execute("SELECT answer FROM responses WHERE key = ?", (key,)).fetchone()
            return json.loads(row[0]) if row else None
        except (sqlite3.DatabaseError, json.JSONDecodeError) as error:
            raise unreadable(self.path, str(error)) from None

    def put(self, key: str, answer: dict) -> None:
        try:
            with self._db:  # one transaction: committed, or rolled back on error
                self._db.execute(
                    "INSERT OR REPLACE INTO responses (key, answer) VALUES (?, ?)",
                    (key, json.dumps(answer, ensure_ascii=False)),
                )
        except sqlite3.DatabaseError as error:
            raise unreadable(self.path, str(error)) from None

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self._db.close()


def check_response_cache(path: Path = DEFAULT_PATH) -> None:
    """A one-line error where the cache at `path` exists and is damaged anywhere in the file."""
    if path.exists():
        ResponseCache(path).close()
