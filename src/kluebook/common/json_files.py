"""Reading and atomically writing JSON and JSON Lines files."""

import gzip
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kluebook.common.errors import KluebookError


def not_utf8(path: str | Path, error: UnicodeDecodeError) -> KluebookError:
    """The one-line error for a file that is not UTF-8 text."""
    return KluebookError(f"{path}: not UTF-8 text ({error.reason}); save it as UTF-8")


def read_json(path: str | Path) -> Any:
    """Load one JSON document, naming the file in the error if it is not valid JSON."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as error:
        raise KluebookError(f"{path}: not valid JSON ({error})") from error
    except UnicodeDecodeError as error:
        raise not_utf8(path, error) from error
    except OSError as error:
        raise KluebookError(f"cannot read {path}: {error.strerror}") from error


def read_jsonl(path: str | Path) -> list[dict]:
    """Load a JSON Lines file of objects (gzip-compressed if its name ends in .gz); blank lines
    are ignored."""
    rows = []
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as error:
                    raise KluebookError(f"{path}:{number}: not valid JSON ({error.msg})") from error
                if not isinstance(row, dict):
                    raise KluebookError(f"{path}:{number}: expected a JSON object")
                rows.append(row)
    except UnicodeDecodeError as error:
        raise not_utf8(path, error) from error
    except (OSError, EOFError) as error:  # a damaged gzip file: BadGzipFile or EOFError
        reason = getattr(error, "strerror", None) or type(error).__name__
        raise KluebookError(f"cannot read {path}: {reason}") from error
    return rows


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write text to a temporary file beside `path`, then rename it into place.

    The file gets the usual permissions (0666 less the umask), not mkstemp's private 0600.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_if_changed(path: str | Path, text: str) -> bool:
    """`write_text_atomic` unless the file already holds `text` (its date then stays, and an
    incremental site build does not read it again); return whether it was written."""
    path = Path(path)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    write_text_atomic(path, text)
    return True


def write_json(path: str | Path, data: Any) -> None:
    """Write one JSON document atomically (UTF-8, Korean kept readable)."""
    write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def write_jsonl(path: str | Path, rows: Iterable[dict]) -> None:
    """Write JSON Lines atomically, one object per line."""
    write_text_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
