"""The offline stand-in model: its vocabulary is a function of the text alone (the same in every
process, whatever the hash seed); a task may widen its embedding tables."""

import os
import subprocess
import sys

from kluebook.training.tiny_model import SPECIAL_TOKENS, wordpiece_vocabulary

# Each task's smoke training data as the smoke book generates it, every string of it, and the
# stand-in vocabulary built from that text: printed as one digest per task.
SMOKE_VOCABULARIES = """
import hashlib
from kluebook.data.loading import GENERATOR_SEED
from kluebook.tasks import available_tasks, get_task, task_module
from kluebook.training.tiny_model import wordpiece_vocabulary

def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)

for task in map(get_task, available_tasks()):
    train = task_module(task).generate(seed=GENERATOR_SEED, **task.smoke_data)["train"]
    vocab = wordpiece_vocabulary(list(strings(train)))
    print(task.name, len(vocab), hashlib.sha256("\\n".join(vocab).encode()).hexdigest())
"""


def test_each_tasks_smoke_vocabulary_is_the_same_under_every_hash_seed():
    def build(hash_seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        return subprocess.run(
            [sys.executable, "-c", SMOKE_VOCABULARIES],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        ).stdout

    first, second = build("1"), build("2")
    assert len(first.splitlines()) >= 8  # every task's corpus
    assert first == second


def test_the_most_frequent_pair_is_merged_first_and_ties_go_to_the_first_token():
    characters = ["##b", "##c", "##d", "a", "b", "c", "d"]
    # "ab" three times, "ac" and "ad" once: ab is merged first, then ac before ad (a tie).
    texts = ["ad ac", "ab ab", "ab"]
    assert wordpiece_vocabulary(texts, 13) == [*SPECIAL_TOKENS, *characters, "ab"]
    assert wordpiece_vocabulary(texts, 14) == [*SPECIAL_TOKENS, *characters, "ab", "ac"]
    # The order of the text does not matter, only its counts.
    assert wordpiece_vocabulary(list(reversed(texts)), 15) == wordpiece_vocabulary(texts, 15)
    # Merging stops when every word is one token.
    assert wordpiece_vocabulary(texts, 100)[-3:] == ["ab", "ac", "ad"]


def test_continuation_pieces_merge_into_continuation_tokens():
    vocab = wordpiece_vocabulary(["서울에서 부산에서 대구에서"], 100)
    assert {"##에서", "서울에서", "부산에서", "대구에서"} <= set(vocab)
    assert "에" in vocab  # every character is also kept on its own, for words it may start


def test_a_task_can_ask_for_wider_embedding_tables(tmp_path, monkeypatch):
    from transformers import AutoModel

    from kluebook.training import tiny_model

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
