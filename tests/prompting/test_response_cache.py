"""The response cache: keyed by the request (model, prompt, decoding settings), each answer
committed whole as it arrives, so a process killed mid-sweep leaves every answer it had."""

import os
import random
import sqlite3
import subprocess
import sys

import pytest

from kluebook.common.errors import KluebookError
from kluebook.prompting.response_cache import ResponseCache, request_key

REQUEST = {"model": "m", "endpoint": "chat", "prompt": "제목: 리그 개막\n답:", "max_tokens": 8}

# Writes answers one by one and is killed (SIGKILL: no clean-up of any kind) after the 40th.
KILLED_MID_SWEEP = """
import os, signal, sys
from kluebook.prompting.response_cache import ResponseCache, request_key
cache = ResponseCache(sys.argv[1])
for index in range(100):
    cache.put(request_key({"prompt": str(index)}), {"text": "답 " * 200 + str(index)})
    if index == 39:
        os.kill(os.getpid(), signal.SIGKILL)
"""


def test_the_key_is_the_request_whatever_the_order_of_its_fields():
    assert request_key(REQUEST) == request_key(dict(reversed(list(REQUEST.items()))))
    for field, other in (("model", "m2"), ("prompt", "제목: 리그 개막\n답: "), ("max_tokens", 9)):
        assert request_key({**REQUEST, field: other}) != request_key(REQUEST), field
    assert request_key({**REQUEST, "temperature": 0.0}) != request_key(REQUEST)


def test_answers_outlive_the_process_that_wrote_them(tmp_path):
    path = tmp_path / "responses.sqlite"
    cache = ResponseCache(path)
    assert cache.get(request_key(REQUEST)) is None
    cache.put(request_key(REQUEST), {"text": "스포츠"})
    cache.close()
    reopened = ResponseCache(path)
    assert reopened.get(request_key(REQUEST)) == {"text": "스포츠"}
    assert len(reopened) == 1


def test_a_process_killed_mid_sweep_leaves_exactly_the_answers_it_had(tmp_path):
    path = tmp_path / "responses.sqlite"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_MID_SWEEP, str(path)], env=os.environ, capture_output=True
    )
    assert killed.returncode == -9, killed.stderr
    cache = ResponseCache(path)
    assert len(cache) == 40
    for index in range(40):
        assert cache.get(request_key({"prompt": str(index)}))["text"].endswith(f" {index}")
    assert cache.get(request_key({"prompt": "40"})) is None


def test_a_file_that_is_not_a_cache_is_one_line(tmp_path):
    path = tmp_path / "responses.sqlite"
    path.write_text("not a database, but long enough to have a header of sorts " * 10)
    with pytest.raises(KluebookError) as error:
        ResponseCache(path)
    assert str(error.value).startswith(f"{path}: not a readable response cache")
    assert "\n" not in str(error.value)


def test_a_cache_damaged_in_the_middle_is_found_when_it_is_opened(tmp_path):
    path = tmp_path / "responses.sqlite"
    cache = ResponseCache(path)
    for index in range(300):
        cache.put(request_key({"prompt": str(index)}), {"text": "답 " * 100 + str(index)})
    cache.close()
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    size = path.stat().st_size
    page = 4096 * (size // 4096 // 2)  # a page in the middle: the header is intact
    with path.open("r+b") as file:
        file.seek(page)
        file.write(random.Random(0).randbytes(4096))
    with pytest.raises(KluebookError) as error:
        ResponseCache(path)
    assert str(error.value).startswith(f"{path}: not a readable response cache")
    assert "remove it to start afresh" in str(error.value)
