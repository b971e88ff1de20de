"""The offline stand-in model: the same text gives the same model in every process; a task may
widen its embedding tables."""

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


def test_a_task_can_ask_for_wider_embedding_tables(tmp_path, monkeypatch):
    from transformers import AutoModel

    from kluebook import tiny_model

    monkeypatch.setattr(tiny_model, "CACHE", tmp_path)
    texts = ["카페 지역은 강남이면 좋겠어요.", "공연은 토요일 저녁이 좋겠어요."] * 20
    default = tiny_model.build_tiny_model(texts, vocab_size=200)
    wide = tiny_model.build_tiny_model(texts, vocab_size=200, embedding_std=0.2)
    assert wide != default  # cached apart: a task's wider tables never reach another task

    def tables(folder):
        embeddings = AutoModel.from_pretrained(folder).embeddings
        return embeddings.word_embeddings.weight, embeddings.position_embeddings.weight

    (words, positions), (wide_words, wide_positions) = tables(default), tables(wide)
    assert 0.015 < words.std() < 0.025 and 0.015 < positions.std() < 0.025
    assert 0.18 < wide_words.std() < 0.22 and 0.18 < wide_positions.std() < 0.22
    assert wide_words[1].abs().sum() == 0  # [PAD] stays a zero row
