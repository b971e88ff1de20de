"""The offline stand-in model: the same text gives the same model in every process."""

import subprocess
import sys

BUILD = """
import sys
from kluebook.tiny_model import train_wordpiece_tokenizer
texts = ["서울 시장 선거 결과 발표", "경제 성장률 전망 하향", "야구 대표팀 결승 진출"] * 20
vocab = train_wordpiece_tokenizer(texts, vocab_size=200).get_vocab()
print(sorted(vocab.items(), key=lambda item: item[1]))
"""


def test_the_vocabulary_is_numbered_the_same_in_every_process():
    runs = [
        subprocess.run([sys.executable, "-c", BUILD], capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stdout.startswith("[('[CLS]', 0), ('[PAD]', 1), ('[SEP]', 2)")
