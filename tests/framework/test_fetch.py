"""`kluebook data fetch` against a local HTTP server on 127.0.0.1, never the internet."""

import functools
import hashlib
import http.server
import threading

import pytest

from kluebook import fetch as fetch_module
from kluebook.errors import KluebookError
from kluebook.tasks import get_task


@pytest.fixture
def mirror(tmp_path):
    """A folder served over HTTP on a free loopback port; yields (folder, base URL)."""
    root = tmp_path / "mirror"
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def publish(root, relative: str, content: bytes) -> str:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return hashlib.sha256(content).hexdigest()


def use_manifest(monkeypatch, files: dict):
    monkeypatch.setattr(fetch_module, "manifest", lambda: {"base_url": "unused", "files": files})


def test_downloads_and_verifies_pinned_checksums(mirror, tmp_path, monkeypatch):
    root, url = mirror
    sums = {
        rel: publish(root, rel, f"[{i}]".encode())
        for i, rel in enumerate(get_task("nli").files.values())
    }
    use_manifest(monkeypatch, sums)
    paths = fetch_module.fetch([get_task("nli")], tmp_path / "data", base_url=url)
    assert [p.read_bytes() for p in paths] == [b"[0]", b"[1]"]


def test_checksum_mismatch_is_an_error_and_leaves_no_file(mirror, tmp_path, monkeypatch):
    root, url = mirror
    files = dict.fromkeys(get_task("nli").files.values(), "0" * 64)
    for relative in files:
        publish(root, relative, b"tampered")
    use_manifest(monkeypatch, files)
    with pytest.raises(KluebookError, match="checksum mismatch"):
        fetch_module.fetch([get_task("nli")], tmp_path / "data", base_url=url)
    assert not any((tmp_path / "data").rglob("*.json"))


def test_unpinned_file_is_recorded_then_enforced(mirror, tmp_path, monkeypatch):
    root, url = mirror
    relative = get_task("ynat").files["train"]
    use_manifest(monkeypatch, dict.fromkeys(get_task("ynat").files.values()))
    for rel in get_task("ynat").files.values():
        publish(root, rel, b"[]")
    dest = tmp_path / "data"
    fetch_module.fetch([get_task("ynat")], dest, base_url=url)
    assert f"  {relative}" in (dest / "SHA256SUMS").read_text()
    (dest / relative).unlink()
    publish(root, relative, b"[1]")  # the mirror now serves something else
    with pytest.raises(KluebookError, match="checksum mismatch"):
        fetch_module.fetch([get_task("ynat")], dest, base_url=url)


def test_unreachable_server_is_a_one_line_error(tmp_path, monkeypatch):
    use_manifest(monkeypatch, dict.fromkeys(get_task("ynat").files.values()))
    with pytest.raises(KluebookError, match=r"cannot download http://127\.0\.0\.1:9/"):
        fetch_module.fetch([get_task("ynat")], tmp_path, base_url="http://127.0.0.1:9", timeout=2)
