"""TRADE on the Hugging Face Trainer: dataset, collator, greedy evaluation and metrics."""

import pytest
import torch
from conftest import tiny_encoder

from kluebook.tasks.wos import synthetic as synthetic_wos
from kluebook.tasks.wos import trade as trade
from kluebook.tasks.wos.data import slot_names, user_states
from kluebook.training.fine_tuning import fine_tune
from kluebook.training.recipes import Recipe
from kluebook.training.tiny_model import train_wordpiece_tokenizer


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def data() -> dict:
    return synthetic_wos.generate(seed=3, train_dialogues=12, dev_dialogues=4)


@pytest.fixture(scope="module")
def tokenizer(data):
    texts = [t["text"] for d in data["train"] + data["dev"] for t in d["dialogue"]]
    texts += [" ".join(values) for values in data["ontology"].values()]
    texts += [slot.replace("-", " ") for slot in data["ontology"]]
    return train_wordpiece_tokenizer(texts, 400)  # the same in every process


def _model(tokenizer, slots) -> trade.Trade:
    return trade.Trade(
        tiny_encoder(tokenizer, hidden_size=16, layers=1),
        trade.slot_token_ids(tokenizer, slots),
        tokenizer.pad_token_id,
    )


def test_states_from_ids_agree_with_predicted_states(data, tokenizer):
    slots = slot_names(data["train"])
    torch.manual_seed(1)
    gate_logits = torch.randn(3, len(slots), len(trade.GATES))
    point_probs = torch.rand(3, len(slots), 4, len(tokenizer))
    expected = trade.predicted_states(tokenizer, slots, gate_logits, point_probs)
    gates, tokens = gate_logits.argmax(-1).tolist(), point_probs.argmax(-1).tolist()
    assert trade.states_from_ids(tokenizer, slots, gates, tokens) == expected


def test_the_collator_pads_dataset_rows_like_collate(data, tokenizer):
    slots = slot_names(data["train"])
    examples = trade.turn_examples(data["train"][:3], tokenizer, slots, max_length=64)
    dataset = trade.turn_dataset(examples)
    assert dataset.column_names == ["input_ids", "target_ids", "gate_ids"]
    batch = trade.TurnCollator(tokenizer.pad_token_id)([dataset[i] for i in range(len(dataset))])
    expected = trade.collate(examples, tokenizer.pad_token_id)
    assert batch.keys() == expected.keys()
    for key, value in expected.items():
        assert torch.equal(batch[key], value)


def test_trainer_evaluation_decodes_greedily_and_scores_states(data, tokenizer, tmp_path):
    slots = slot_names(data["train"] + data["dev"])
    train = trade.turn_examples(data["train"], tokenizer, slots, max_length=64)
    dev = trade.turn_examples(data["dev"], tokenizer, slots, max_length=64)
    gold = [state for dialogue in data["dev"] for state in user_states(dialogue)]
    recipe = Recipe(
        learning_rate=1e-3,
        batch_size=8,
        eval_batch_size=5,
        epochs=1,
        warmup_ratio=0.0,
        weight_decay=0.0,
        max_length=64,
        adam_epsilon=1e-8,
        max_grad_norm=1.0,
        evals_per_epoch=1,
        selection_metric="slot_f1",
    )
    model = _model(tokenizer, slots)
    result = fine_tune(
        model,
        tokenizer,
        trade.turn_dataset(train),
        trade.turn_dataset(dev),
        trade.metrics_function(tokenizer, slots, gold),
        recipe,
        seed=0,
        output_dir=tmp_path,
        trainer_class=trade.TradeTrainer,
    )
    assert result.best.keys() == {"step", "epoch", "joint_goal_accuracy", "slot_f1"}
    assert result.last["epoch"] == 1.0
    trainer = result.trainer
    gates, tokens = trainer.predict(trade.turn_dataset(dev)).predictions
    assert gates.shape == (len(dev), len(slots))
    assert tokens.shape == (len(dev), len(slots), trade.MAX_DECODE_STEPS)
    # the predictions are those of greedy decoding without targets, in dev order
    model.eval()
    batch = trade.collate(dev, tokenizer.pad_token_id)
    with torch.no_grad():
        output = model(batch["input_ids"], batch["attention_mask"])
    expected = trade.predicted_states(
        tokenizer, slots, output["gate_logits"], output["point_probs"]
    )
    assert trade.states_from_ids(tokenizer, slots, gates.tolist(), tokens.tolist()) == expected
    metrics = trainer.evaluate()
    assert {"eval_joint_goal_accuracy", "eval_slot_f1"} <= metrics.keys()
    assert 0.0 <= metrics["eval_joint_goal_accuracy"] <= metrics["eval_slot_f1"] <= 100.0
