"""The offline causal LM: the same bytes on every build, whatever the hash seed; its tokenizer
loads back as itself, with its chat template."""

import hashlib
import os
import subprocess
import sys

import pytest

from kluebook.prompting import tiny_causal_lm

TEXTS = ["다음 뉴스 제목의 주제를 고르세요.", "제목: 리그 개막 주제: 스포츠", "수출 증가 경제"]
BUILD = f"""
import hashlib, sys
from pathlib import Path
from kluebook.prompting.tiny_causal_lm import build_tiny_causal_lm
folder = build_tiny_causal_lm({TEXTS!r}, vocab_size=300)
for path in sorted(folder.iterdir()):
    print(path.name, hashlib.sha256(path.read_bytes()).hexdigest())
"""


@pytest.mark.slow  # two processes that import torch
def test_two_builds_under_two_hash_seeds_are_the_same_bytes(tmp_path):
    def build(hash_seed):
        cache = tmp_path / hash_seed
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "KLUEBOOK_CACHE": str(cache)}
        command = [sys.executable, "-c", BUILD]
        return subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout

    first = build("1")
    assert first == build("2")
    files = [line.split()[0] for line in first.splitlines()]
    assert {"config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja"} <= set(
        files
    )


def test_the_tokenizer_loads_back_as_built_with_its_chat_template(tmp_path, monkeypatch):
    from transformers import AutoConfig, AutoTokenizer

    monkeypatch.setattr(tiny_causal_lm, "CACHE", tmp_path)
    folder = tiny_causal_lm.build_tiny_causal_lm(TEXTS, vocab_size=300)
    built = tiny_causal_lm.tiny_causal_tokenizer(TEXTS, vocab_size=300)
    loaded = AutoTokenizer.from_pretrained(folder)
    text = "제목: 리그 개막 주제: 스포츠"
    assert loaded(text).input_ids == built(text).input_ids
    assert loaded(text).input_ids[0] == loaded.bos_token_id  # every text opens with [CLS]
    assert loaded.decode(loaded(text).input_ids, skip_special_tokens=True) == (
        "제목 : 리그 개막 주제 : 스포츠"  # WordPiece decoding spaces punctuation apart
    )
    assert loaded.chat_template == tiny_causal_lm.CHAT_TEMPLATE
    assert loaded.padding_side == "left"
    assert AutoConfig.from_pretrained(folder).model_type == "qwen3"
    assert tiny_causal_lm.build_tiny_causal_lm(TEXTS, vocab_size=300) == folder  # cached
    name = folder.name
    assert hashlib.sha256("\n".join(TEXTS).encode()).hexdigest()[:16] in name
