"""Downloading the official KLUE v1.1 files, each checked against its SHA-256."""

import urllib.error
import urllib.request
from pathlib import Path

import yaml
from tqdm.auto import tqdm

from kluebook.data import file_sha256
from kluebook.errors import KluebookError
from kluebook.paths import CONFIGS
from kluebook.tasks import Task

SUMS_FILE = "SHA256SUMS"


def manifest() -> dict:
    """configs/data.yaml: the base URL and the pinned checksum of every official file."""
    with open(CONFIGS / "data.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _recorded_sums(dest: Path) -> dict[str, str]:
    path = dest / SUMS_FILE
    if not path.exists():
        return {}
    pairs = (line.split(maxsplit=1) for line in path.read_text().splitlines() if line.strip())
    return {name.strip(): digest for digest, name in pairs}


def _record_sum(dest: Path, relative: str, digest: str) -> None:
    sums = _recorded_sums(dest) | {relative: digest}
    (dest / SUMS_FILE).write_text("".join(f"{d}  {n}\n" for n, d in sorted(sums.items())))


def _download(url: str, target: Path, timeout: float) -> None:
    """Stream `url` to `target` through a temporary file, with a progress bar."""
    partial = target.with_name(target.name + ".partial")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, open(partial, "wb") as out:
            total = int(response.headers.get("Content-Length") or 0) or None
            with tqdm(total=total, unit="B", unit_scale=True, desc=target.name) as bar:
                for block in iter(lambda: response.read(1 << 16), b""):
                    out.write(block)
                    bar.update(len(block))
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        partial.unlink(missing_ok=True)
        raise KluebookError(f"cannot download {url}: {getattr(error, 'reason', error)}") from error
    partial.replace(target)


def fetch(
    tasks: list[Task], dest: str | Path, base_url: str | None = None, timeout: float = 60.0
) -> list[Path]:
    """Download the tasks' official files into `dest`; a file already there is kept if it checks."""
    dest = Path(dest)
    spec = manifest()
    base_url = (base_url or spec["base_url"]).rstrip("/")
    fetched = []
    for task in tasks:
        for relative in task.files.values():
            target = dest / relative
            expected = spec["files"].get(relative) or _recorded_sums(dest).get(relative)
            if target.exists() and expected and file_sha256(target) == expected:
                fetched.append(target)
                continue
            _download(f"{base_url}/{relative}", target, timeout)
            actual = file_sha256(target)
            if expected is None:
                _record_sum(dest, relative, actual)
            elif actual != expected:
                target.unlink()
                raise KluebookError(
                    f"{relative}: checksum mismatch (expected {expected[:16]}…, got {actual[:16]}…)"
                )
            fetched.append(target)
    return fetched
