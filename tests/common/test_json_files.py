"""Atomic JSON writes: nothing half written, and files readable like any other."""

import gzip
import os
import stat

import pytest

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import read_json, read_jsonl, write_json


def test_a_written_file_has_the_usual_permissions_not_mkstemps(tmp_path):
    path = tmp_path / "record.json"
    write_json(path, {"a": 1})
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert read_json(path) == {"a": 1}


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    path = tmp_path / "record.json"
    write_json(path, {"a": 1})
    with pytest.raises(TypeError):
        write_json(path, {"a": object()})
    assert read_json(path) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]


def test_gzip_json_lines_are_read_and_a_damaged_one_is_one_line(tmp_path):
    path = tmp_path / "rows.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"guid": "a"}\n\n{"guid": "b"}\n'))
    assert read_jsonl(path) == [{"guid": "a"}, {"guid": "b"}]
    path.write_bytes(gzip.compress(b'{"guid": "a"}\n' * 50)[:-12])
    with pytest.raises(KluebookError, match=r"cannot read .*rows.jsonl.gz: EOFError"):
        read_jsonl(path)
