"""What runs now on this book root: a marker per run in progress, and each run's log."""

import json
import os
import socket
from pathlib import Path

from kluebook.common.json_files import write_json
from kluebook.common.paths import CACHE, ROOT

# Runs in progress here: one marker each (what it is, its host and process, its log), removed
# when the run ends; and each run's log, the kernel's stdout and stderr as they come.
IN_PROGRESS = CACHE / "in-progress"
LOGS = CACHE / "logs"


def mark_in_progress(marker: Path, task: str, name: str, started: float, log: Path) -> None:
    write_json(
        marker,
        {
            "task": task,
            "name": name,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "started": started,
            "log": str(log.relative_to(ROOT)) if log.is_relative_to(ROOT) else str(log),
        },
    )


def runs_in_progress() -> list[dict]:
    """The runs executing on this book root now, each with the last line of its log; a marker
    left by a process of this host that is gone is dropped."""
    found = []
    for marker in sorted(IN_PROGRESS.glob("*/*.json")):
        try:
            run = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # being written or removed
        if run.get("host") == socket.gethostname() and not _alive(run.get("pid")):
            marker.unlink(missing_ok=True)
            continue
        log = ROOT / run["log"]
        lines = (
            log.read_text(encoding="utf-8", errors="replace").splitlines() if log.exists() else []
        )
        last = next((line.strip() for line in reversed(lines) if line.strip()), "")
        found.append({**run, "last_line": last})
    return found


def _alive(pid) -> bool:
    try:
        os.kill(int(pid), 0)
    except (TypeError, ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True
