"""`kluebook data fetch` against a local HTTP server on 127.0.0.1, never the internet."""

import functools
import hashlib
import http.server
import threading

import pytest

from kluebook.common.errors import KluebookError
from kluebook.data import fetch as fetch_module
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


def publish(root, relative: str, content: bytes) -> dict:
    """Serve `content` at `relative`; its pins, as configs/data.yaml writes them."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
    return {"git_blob": blob, "sha256": hashlib.sha256(content).hexdigest()}


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
    files = {}
    for relative in get_task("nli").files.values():
        files[relative] = publish(root, relative, b"original")
        publish(root, relative, b"tampered")
    use_manifest(monkeypatch, files)
    with pytest.raises(KluebookError, match="checksum mismatch, git blob id"):
        fetch_module.fetch([get_task("nli")], tmp_path / "data", base_url=url)
    assert not any((tmp_path / "data").rglob("*.json"))


def test_a_file_pinned_by_its_git_blob_alone_is_checked(mirror, tmp_path, monkeypatch):
    root, url = mirror
    relative = get_task("ynat").files["train"]
    files = get_task("ynat").files.values()
    use_manifest(
        monkeypatch, {rel: {"git_blob": publish(root, rel, b"[]")["git_blob"]} for rel in files}
    )
    dest = tmp_path / "data"
    fetch_module.fetch([get_task("ynat")], dest, base_url=url)
    (dest / relative).unlink()
    publish(root, relative, b"[1]")  # the mirror now serves something else
    with pytest.raises(KluebookError, match="checksum mismatch, git blob id"):
        fetch_module.fetch([get_task("ynat")], dest, base_url=url)


def test_every_official_file_is_pinned_by_its_git_blob():
    files = fetch_module.manifest()["files"]
    assert len(files) == 18
    assert all(len(pins["git_blob"]) == 40 for pins in files.values())
    assert files["klue-sts-v1.1/klue-sts-v1.1_dev.json"]["git_blob"].startswith("2645707503e7")


def test_the_real_files_reproduce_their_pins():
    """Every pinned file present in KLUEBOOK_DATA_DIR matches its git blob id and SHA-256."""
    from kluebook.common.paths import KLUE_DATA

    present = {
        rel: p for rel, p in fetch_module.manifest()["files"].items() if (KLUE_DATA / rel).is_file()
    }
    if not present:
        pytest.skip(f"no official KLUE file in KLUEBOOK_DATA_DIR ({KLUE_DATA})")
    for relative, pins in present.items():
        assert fetch_module.mismatch(KLUE_DATA / relative, pins) is None, relative


def test_unreachable_server_is_a_one_line_error(tmp_path, monkeypatch):
    use_manifest(
        monkeypatch, {key: {"git_blob": "0" * 40} for key in get_task("ynat").files.values()}
    )
    with pytest.raises(KluebookError, match=r"cannot download http://127\.0\.0\.1:9/"):
        fetch_module.fetch([get_task("ynat")], tmp_path, base_url="http://127.0.0.1:9", timeout=2)
