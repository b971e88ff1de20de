import pytest
import torch
from conftest import tiny_encoder
from transformers import BertTokenizerFast

from kluebook.tasks.wos import synthetic as synthetic_wos
from kluebook.tasks.wos import trade as trade
from kluebook.tasks.wos.data import slot_names, user_states
from kluebook.training.tiny_model import train_wordpiece_tokenizer


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models run fastest on one thread and do not stall when other processes load the CPUs."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def data() -> dict:
    return synthetic_wos.generate(seed=0, train_dialogues=40, dev_dialogues=4)


@pytest.fixture(scope="module")
def tokenizer(data):
    texts = [t["text"] for d in data["train"] for t in d["dialogue"]]
    texts += [" ".join(values) for values in data["ontology"].values()]
    texts += [slot.replace("-", " ") for slot in data["ontology"]]
    return train_wordpiece_tokenizer(texts, 500)  # the same in every process


def _model(tokenizer, slots) -> trade.Trade:
    return trade.Trade(
        tiny_encoder(tokenizer, dropout=0.0),
        trade.slot_token_ids(tokenizer, slots),
        tokenizer.pad_token_id,
    )


def test_turn_inputs_follow_the_baseline_layout(tokenizer):
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    user_1 = tokenizer("카페", add_special_tokens=False)["input_ids"]
    system_2 = tokenizer("알겠습니다", add_special_tokens=False)["input_ids"]
    user_2 = tokenizer("성수", add_special_tokens=False)["input_ids"]
    # first turn: no history, empty system utterance
    assert trade.turn_inputs(tokenizer, [], "", "카페", 64) == [cls, sep, sep, *user_1, sep]
    # second turn: history = sys_1 ("") [SEP] user_1
    second = trade.turn_inputs(tokenizer, ["", "카페"], "알겠습니다", "성수", 64)
    assert second == [cls, sep, *user_1, sep, *system_2, sep, *user_2, sep]
    # left truncation keeps the last max_length-2 tokens between [CLS] and the final [SEP]
    short = trade.turn_inputs(tokenizer, ["", "카페"], "알겠습니다", "성수", 4)
    assert short == [cls, *second[-3:-1], sep]


def test_turn_examples_targets_and_gates(tokenizer):
    slots = ["카페-주차 가능", "카페-지역", "택시-도착지"]
    dialogue = {
        "guid": "d0",
        "domains": ["카페"],
        "dialogue": [
            {"role": "user", "text": "카페", "state": ["카페-지역-dontcare"]},
            {"role": "sys", "text": "네"},
            {
                "role": "user",
                "text": "성수",
                "state": ["카페-주차 가능-yes", "택시-도착지-서울-부산"],
            },
            {"role": "sys", "text": "네"},
        ],
    }
    first, second = trade.turn_examples([dialogue], tokenizer, slots, max_length=64)
    assert (first.turn, second.turn) == (0, 1)
    assert first.input_ids == trade.turn_inputs(tokenizer, [], "", "카페", 64)
    assert second.input_ids == trade.turn_inputs(tokenizer, ["", "카페"], "네", "성수", 64)
    none, dontcare, ptr, yes = (trade.GATE_IDS[g] for g in ("none", "dontcare", "ptr", "yes"))
    assert first.gate_ids == [none, dontcare, none]
    assert second.gate_ids == [yes, none, ptr]
    pieces = tokenizer("서울-부산", add_special_tokens=False)["input_ids"]
    assert second.target_ids[2] == [*pieces, tokenizer.sep_token_id]
    none_pieces = tokenizer("none", add_special_tokens=False)["input_ids"]
    assert second.target_ids[1] == [*none_pieces, tokenizer.sep_token_id]


def test_predicted_states_from_gates_and_pieces(tokenizer):
    slots = ["렌터카-대여 시간", "렌터카-보험 포함", "렌터카-차종", "카페-지역", "카페-종류"]
    pieces = tokenizer("10:30", add_special_tokens=False)["input_ids"]
    none_pieces = tokenizer("none", add_special_tokens=False)["input_ids"]
    sep = tokenizer.sep_token_id
    rows = [[*pieces, sep, sep], [sep] * 5, [sep] * 5, [sep] * 5, [*none_pieces, sep][:5]]
    rows = [(row + [sep] * 5)[:5] for row in rows]
    vocab = len(tokenizer)
    point_probs = torch.nn.functional.one_hot(torch.tensor([rows]), vocab).float()
    gates = [trade.GATE_IDS[g] for g in ("ptr", "no", "dontcare", "none", "ptr")]
    gate_logits = torch.nn.functional.one_hot(torch.tensor([gates]), len(trade.GATES)).float()
    assert trade.predicted_states(tokenizer, slots, gate_logits, point_probs) == [
        ["렌터카-대여 시간-10:30", "렌터카-보험 포함-no", "렌터카-차종-dontcare"]
    ]


def test_forward_backward_and_a_few_steps_reduce_the_loss(data, tokenizer):
    slots = slot_names(data["train"])
    examples = trade.turn_examples(data["train"][:2], tokenizer, slots, max_length=128)
    batch = trade.collate(examples, tokenizer.pad_token_id)
    model = _model(tokenizer, slots)
    model.teacher_forcing = 1.0
    output = model(**batch)
    steps = batch["target_ids"].size(-1)
    assert output["point_probs"].shape == (len(examples), len(slots), steps, len(tokenizer))
    assert output["gate_logits"].shape == (len(examples), len(slots), 5)
    torch.testing.assert_close(
        output["point_probs"].sum(-1), torch.ones(len(examples), len(slots), steps)
    )
    output["loss"].backward()
    assert model.encoder.get_input_embeddings().weight.grad.abs().sum() > 0
    assert model.gru.weight_hh_l0.grad.abs().sum() > 0

    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    first = None
    for _ in range(10):
        optimizer.zero_grad()
        loss = model(**batch)["loss"]
        first = first if first is not None else loss.item()
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.7 * first


def test_greedy_decoding_without_targets(data, tokenizer):
    slots = slot_names(data["train"])
    examples = trade.turn_examples(data["dev"], tokenizer, slots, max_length=128)
    batch = trade.collate(examples, tokenizer.pad_token_id)
    model = _model(tokenizer, slots).eval()
    with torch.no_grad():
        output = model(batch["input_ids"], batch["attention_mask"])
    assert "loss" not in output
    assert output["point_probs"].shape[2] == trade.MAX_DECODE_STEPS
    states = trade.predicted_states(tokenizer, slots, output["gate_logits"], output["point_probs"])
    assert len(states) == sum(len(user_states(d)) for d in data["dev"])


def test_greedy_decoding_stops_once_every_value_has_ended_and_decodes_the_same(data, tokenizer):
    slots = slot_names(data["train"])
    batch = trade.collate(
        trade.turn_examples(data["dev"], tokenizer, slots, max_length=128), tokenizer.pad_token_id
    )
    special = tokenizer.all_special_ids
    full = _model(tokenizer, slots).eval()
    stopping = _model(tokenizer, slots).eval()
    stopping.stop_ids = torch.tensor(sorted(special))
    with torch.no_grad():
        # Every decoder output is all ones (update gate shut, candidate saturated) and only
        # [SEP]'s embedding points along it: every value ends with [SEP] at the first step.
        for model in (full, stopping):
            model.gru.bias_hh_l0[: model.gru.hidden_size] = 0  # reset gate open
            model.gru.bias_ih_l0[model.gru.hidden_size : 2 * model.gru.hidden_size] = -50
            model.gru.bias_ih_l0[2 * model.gru.hidden_size :] = 50
            model.generate_switch.bias.fill_(50)
            model.embedding.weight[:] = 0
            model.embedding.weight[tokenizer.sep_token_id] = 1
        outputs = [m(batch["input_ids"], batch["attention_mask"]) for m in (full, stopping)]
    assert outputs[0]["point_probs"].shape[2] == trade.MAX_DECODE_STEPS
    assert outputs[1]["point_probs"].shape[2] == 1
    states = [
        trade.predicted_states(tokenizer, slots, o["gate_logits"], o["point_probs"])
        for o in outputs
    ]
    assert states[0] == states[1]


@pytest.mark.parametrize("padding", ["summed", "masked"])
def test_slot_name_embeddings_add_the_pad_rows_only_when_summed(data, tokenizer, padding):
    by_length = sorted(data["ontology"], key=lambda s: len(trade.slot_token_ids(tokenizer, [s])[0]))
    slots = [by_length[0], by_length[-1]]
    encoder = tiny_encoder(tokenizer, dropout=0.0)
    pad_row = torch.full((encoder.config.hidden_size,), 0.5)
    with torch.no_grad():  # a released checkpoint's pad row need not be zero
        encoder.get_input_embeddings().weight[tokenizer.pad_token_id] = pad_row
    names = trade.slot_token_ids(tokenizer, slots)
    model = trade.Trade(encoder, names, tokenizer.pad_token_id, slot_name_padding=padding)
    table = encoder.get_input_embeddings().weight
    width = max(len(ids) for ids in names)
    for row, ids in zip(model._slot_embeddings(), names, strict=True):
        pads = width - len(ids) if padding == "summed" else 0
        expected = table[ids].sum(dim=0) + pads * pad_row
        assert torch.allclose(row, expected, atol=1e-6)
    assert len(names[0]) < len(names[1])  # the first name is padded


def test_slot_name_padding_follows_the_recipe_it_is_given(tokenizer):
    from kluebook.tasks import get_task
    from kluebook.training.recipes import resolve_recipe
    from kluebook.training.tiny_model import TINY_MODEL

    task = get_task("wos")
    names = trade.slot_token_ids(tokenizer, ["카페-지역"])
    for profile, model, expected in [
        ("paper", "klue/roberta-base", True),
        ("smoke", TINY_MODEL, False),
    ]:
        padding = resolve_recipe(task, model, profile, {}).switches()["wos_slot_name_padding"]
        tracker = trade.Trade(tiny_encoder(tokenizer), names, tokenizer.pad_token_id, padding)
        assert tracker.sums_slot_padding is expected
    # Without the recipe's value, the official padding.
    assert trade.Trade(tiny_encoder(tokenizer), names, tokenizer.pad_token_id).sums_slot_padding


def test_decoded_values_get_the_tokenisation_clean_up_of_transformers_3():
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "강남", ".", ","]
    vocab += ["역", "##점", ":", "30"]
    tokenizer = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=False)
    ids = tokenizer.convert_tokens_to_ids(["강남", "##점", ".", "역", ",", "30", ":", "30"])
    # 3.5.1 joins the pieces with spaces, cleans " ." and " ,", then the baseline's " : " -> ":"
    assert trade.decode_value(tokenizer, [*ids, tokenizer.sep_token_id, 5]) == "강남점. 역, 30:30"
