import pytest
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
from transformers import BertTokenizerFast

from kluebook.common.errors import KluebookError
from kluebook.tasks.ner import data as ner

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def wordpiece_tokenizer(pieces: list[str]) -> BertTokenizerFast:
    """A small BERT-style WordPiece tokenizer (like KLUE's, no lower-casing) over `pieces`."""
    vocab = {token: index for index, token in enumerate(SPECIALS + pieces)}
    backend = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=False)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    return BertTokenizerFast(
        tokenizer_object=backend,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )


def char_level_tokenizer(texts: list[str]) -> BertTokenizerFast:
    chars = sorted({char for text in texts for char in text if not char.isspace()})
    return wordpiece_tokenizer(chars + [f"##{char}" for char in chars])


def test_eojeols_and_their_start_characters():
    assert ner.eojeols(list("가 나다 라")) == (["가", "나다", "라"], [0, 2, 5])


def test_subwords_take_the_tag_of_their_first_character_and_project_back():
    tokenizer = wordpiece_tokenizer(["김", "##철수", "##가", "왔", "##다", "."])
    chars = list("김철수가 왔다.")
    tags = ["B-PS", "I-PS", "I-PS", "O", "O", "O", "O", "O"]
    encoded = ner.encode_tagged_sentence(tokenizer, chars, tags, max_length=32)
    # [CLS] 김 ##철수 ##가 왔 ##다 . [SEP]
    assert encoded["char_spans"] == [(0, 1), (1, 3), (3, 4), (5, 6), (6, 7), (7, 8)]
    ids = ner.TAG_IDS
    assert encoded["labels"] == [ids["O"], ids["B-PS"], ids["I-PS"]] + [ids["O"]] * 5
    # The first character of a subword keeps the predicted tag, the rest get I-<type>.
    predicted = ["B-PS", "B-PS", "O", "O", "O", "O"]
    projected = ner.project_to_characters(chars, encoded["char_spans"], predicted)
    assert projected == ["B-PS", "B-PS", "I-PS", "O", "O", "O", "O", "O"]


def test_an_unk_subword_covers_exactly_the_characters_it_replaced():
    # 뷁 is not in the vocabulary, so WordPiece turns the whole eojeol 뷁철 into one [UNK].
    # The baseline aligned predictions by the length of the token text, counting "[UNK]" as
    # five characters (KLUE-baseline issue 9); the tokenizer's offsets give the true span.
    tokenizer = wordpiece_tokenizer(["김", "##철", "##수", "왔", "##다", "철"])
    chars = list("뷁철 김철수 왔다")
    tags = ["B-PS", "I-PS", "O", "B-PS", "I-PS", "I-PS", "O", "O", "O"]
    encoded = ner.encode_tagged_sentence(tokenizer, chars, tags, max_length=32)
    tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"])
    assert tokens[:3] == ["[CLS]", "[UNK]", "김"]
    assert encoded["char_spans"][0] == (0, 2)
    subword_tags = [ner.TAGS[label] for label in encoded["labels"][1:-1]]
    projected = ner.project_to_characters(chars, encoded["char_spans"], subword_tags)
    assert projected == tags


def test_subwords_beyond_max_length_are_cut_and_their_characters_predicted_o():
    tokenizer = wordpiece_tokenizer(["김", "##철", "##수", "왔", "##다"])
    chars = list("김철수 왔다")
    tags = ["B-PS", "I-PS", "I-PS", "O", "O", "O"]
    encoded = ner.encode_tagged_sentence(tokenizer, chars, tags, max_length=4)
    assert len(encoded["input_ids"]) == len(encoded["labels"]) == 4
    projected = ner.project_to_characters(chars, encoded["char_spans"], ["B-PS", "I-PS"])
    assert projected == ["B-PS", "I-PS", "O", "O", "O", "O"]


def test_gold_tags_survive_encoding_and_projection_on_the_real_dev(klue_file):
    records = ner.read_official(klue_file("klue-ner-v1.1/klue-ner-v1.1_dev.tsv"))
    tokenizer = char_level_tokenizer(["".join(r["chars"]) for r in records])
    mismatches = 0
    for record in records:
        encoded = ner.encode_tagged_sentence(
            tokenizer, record["chars"], record["tags"], max_length=510
        )
        subword_tags = [ner.TAGS[label] for label in encoded["labels"][1:-1]]
        projected = ner.project_to_characters(record["chars"], encoded["char_spans"], subword_tags)
        pairs = zip(record["chars"], record["tags"], projected, strict=True)
        mismatches += sum(gold != pred for char, gold, pred in pairs if char != " ")
    assert mismatches == 0


def test_a_slow_tokenizer_is_refused():
    class Slow:
        is_fast = False

    with pytest.raises(KluebookError, match="fast tokenizer"):
        ner.encode_tagged_sentence(Slow(), ["가"], ["O"], max_length=8)
