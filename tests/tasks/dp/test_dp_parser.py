import pytest
import torch
from conftest import tiny_encoder

from kluebook.common.errors import KluebookError
from kluebook.tasks.dp import synthetic as synthetic_dp
from kluebook.tasks.dp.data import DEPRELS, POS_TAGS
from kluebook.tasks.dp.features import IGNORE_INDEX, POS_PAD_ID, collate, encode_parser_input
from kluebook.tasks.dp.metric import uas_micro_f1
from kluebook.tasks.dp.parser import DependencyParser
from kluebook.training.tiny_model import train_wordpiece_tokenizer


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Tensors this small train faster on one thread than on several."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return synthetic_dp.generate(seed=0, train_size=40, dev_size=0)["train"]


@pytest.fixture(scope="module")
def tokenizer(records):
    """A small WordPiece tokenizer learned from the generated sentences (the stand-in's, the
    same in every process)."""
    return train_wordpiece_tokenizer([r["sentence"] for r in records], 300)


def tiny_parser(tokenizer, **sizes) -> DependencyParser:
    return DependencyParser(tiny_encoder(tokenizer, dropout=0.0), **sizes)


SMALL = {"lstm_size": 16, "arc_size": 16, "label_size": 8, "pos_size": 8}


def test_eojeols_point_at_their_first_and_last_subwords(tokenizer):
    record = {
        "guid": "dp-0",
        "word_forms": ["민수가", "빵을", "먹는다."],
        "pos": ["NNP+JKS", "NNG+JKO", "VV+EF+SF"],
        "heads": [3, 3, 0],
        "deprels": ["NP_SBJ", "NP_OBJ", "VP"],
    }
    features = encode_parser_input(tokenizer, record)
    tokens = tokenizer.convert_ids_to_tokens(features["input_ids"])
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    for word, first, last in zip(
        record["word_forms"], features["first_subword"], features["last_subword"], strict=True
    ):
        assert "".join(t.removeprefix("##") for t in tokens[first : last + 1]) == word
    assert features["pos_ids"] == [
        POS_TAGS.index("JKS"),
        POS_TAGS.index("JKO"),
        POS_TAGS.index("SF"),
    ]
    assert features["labels"] == [DEPRELS.index("NP_SBJ"), DEPRELS.index("NP_OBJ"), 2]
    assert features["heads"] == [3, 3, 0]


def test_an_unknown_pos_tag_is_an_error_naming_the_sentence(tokenizer):
    record = {
        "guid": "dp-7",
        "word_forms": ["민수가", "먹는다."],
        "pos": ["NNP+JKS", "VV+XX"],
        "heads": [2, 0],
        "deprels": ["NP_SBJ", "VP"],
    }
    with pytest.raises(KluebookError, match=r"^dp-7: unknown POS tag 'XX'"):
        encode_parser_input(tokenizer, record)


def test_eojeols_cut_by_max_length_point_at_sep(tokenizer, records):
    record = max(records, key=lambda r: len(r["word_forms"]))
    features = encode_parser_input(tokenizer, record, max_length=4)
    assert len(features["input_ids"]) == 4
    assert features["first_subword"][-1] == features["last_subword"][-1] == 3


def test_collate_pads_words_with_ignored_targets(tokenizer, records):
    features = [encode_parser_input(tokenizer, r) for r in records[:4]]
    batch = collate(features, tokenizer.pad_token_id)
    sizes = [len(r["heads"]) for r in records[:4]]
    assert batch["heads"].shape == (4, max(sizes))
    assert batch["word_mask"].sum(dim=1).tolist() == sizes
    short = sizes.index(min(sizes))
    assert min(sizes) < max(sizes)  # the batch pads its shortest sentence
    assert batch["heads"][short, -1] == batch["labels"][short, -1] == IGNORE_INDEX
    assert batch["pos_ids"][short, -1] == POS_PAD_ID


def test_official_sizes_are_the_defaults(tokenizer):
    parser = tiny_parser(tokenizer)
    assert parser.word_lstm.hidden_size == parser.decoder_lstm.hidden_size == 768
    assert parser.arc_scorer.weight.shape == (512, 512)
    assert parser.label_scorer.bilinear.weight.shape == (38, 256, 256)
    assert parser.pos_embedding.weight.shape == (len(POS_TAGS) + 1, 256)


def test_forward_and_backward(tokenizer, records):
    parser = tiny_parser(tokenizer, **SMALL)
    batch = collate(
        [encode_parser_input(tokenizer, r) for r in records[:4]], tokenizer.pad_token_id
    )
    output = parser(**batch)
    words = batch["heads"].size(1)
    assert output.arc_scores.shape == (4, words, words + 1)
    assert output.label_scores.shape == (4, words, len(DEPRELS))
    output.loss.backward()
    assert parser.encoder.embeddings.word_embeddings.weight.grad.abs().sum() > 0
    assert parser.arc_scorer.weight.grad.abs().sum() > 0
    assert parser.pos_embedding.weight.grad.abs().sum() > 0


def test_a_few_steps_on_one_batch_reduce_the_loss(tokenizer, records):
    parser = tiny_parser(tokenizer, **SMALL)
    batch = collate(
        [encode_parser_input(tokenizer, r) for r in records[:8]], tokenizer.pad_token_id
    )
    optimizer = torch.optim.Adam(parser.parameters(), lr=1e-2)
    losses = []
    for _ in range(40):
        optimizer.zero_grad()
        loss = parser(**batch).loss
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.3 * losses[0]
    parser.eval()
    predicted = parser.predict(batch)
    assert [len(heads) for heads, _ in predicted] == [len(r["heads"]) for r in records[:8]]
    gold_heads = [h for r in records[:8] for h in r["heads"]]
    assert uas_micro_f1(gold_heads, [h for heads, _ in predicted for h in heads]) > 80
    assert all(label in DEPRELS for _, labels in predicted for label in labels)


def test_masked_padded_head_candidates_are_never_predicted(tokenizer, records):
    parser = tiny_parser(tokenizer, **SMALL, padded_head_score="masked").eval()
    batch = collate(
        [encode_parser_input(tokenizer, r) for r in records[:6]], tokenizer.pad_token_id
    )
    for (heads, _), size in zip(parser.predict(batch), batch["word_mask"].sum(dim=1), strict=True):
        assert all(0 <= head <= size for head in heads)
