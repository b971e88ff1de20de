"""Downloading the official KLUE v1.1 files, each checked against its pins (configs/data.yaml)
before it is used: its git blob id at the pinned commit, and its SHA-256 where known."""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
from pathlib import Path

import yaml
from tqdm.auto import tqdm

from kluebook.common.errors import KluebookError
from kluebook.common.paths import CONFIGS
from kluebook.data.loading import file_sha256
from kluebook.task_types.task import Task


def manifest() -> dict:
    """configs/data.yaml: the base URL and the pins (`git_blob`, `sha256`) of each file."""
    with open(CONFIGS / "data.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def git_blob_id(path: Path) -> str:
    """The id git gives the file's bytes: SHA-1 of `blob <size>\\0` followed by them."""
    content = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def mismatch(path: Path, pins: dict) -> str | None:
    """Which pin the file fails, in words; None if it matches every pin given."""
    if "git_blob" in pins and git_blob_id(path) != pins["git_blob"]:
        return f"git blob id (expected {pins['git_blob'][:16]}…, got {git_blob_id(path)[:16]}…)"
    if "sha256" in pins and file_sha256(path) != pins["sha256"]:
        return f"SHA-256 (expected {pins['sha256'][:16]}…, got {file_sha256(path)[:16]}…)"
    return None


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
            pins = spec["files"].get(relative) or {}
            if not pins:
                raise KluebookError(f"{relative}: no pinned checksum in configs/data.yaml")
            target = dest / relative
            if target.exists() and mismatch(target, pins) is None:
                fetched.append(target)
                continue
            _download(f"{base_url}/{relative}", target, timeout)
            wrong = mismatch(target, pins)
            if wrong:
                target.unlink()
                raise KluebookError(f"{relative}: checksum mismatch, {wrong}")
            fetched.append(target)
    return fetched
