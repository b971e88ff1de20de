"""Training on real Korean text: the tiny model, trained from scratch on 5,000 real YNAT
headlines, beats the majority class on 3,000 real dev headlines, and evaluation keeps the dev
order."""

import pytest
from transformers import AutoModelForSequenceClassification

from kluebook.tasks import get_task
from kluebook.tasks.ynat import data as ynat
from kluebook.tasks.ynat.metric import macro_f1
from kluebook.training.fine_tuning import fine_tune, load_tokenizer, tokenize
from kluebook.training.recipes import resolve_recipe
from kluebook.training.tiny_model import build_tiny_model

pytestmark = [pytest.mark.slow, pytest.mark.realdata]


def test_tiny_model_beats_the_majority_class_on_real_dev(klue_file, tmp_path, capsys):
    train = ynat.read_official(
        klue_file("ynat-v1.1/ynat-v1.1_train.json", "ynat-v1.1/ynat-v1.1_train.partial.json")
    )[:5000]
    dev = ynat.read_official(
        klue_file("ynat-v1.1/ynat-v1.1_dev.json", "ynat-v1.1/ynat-v1.1_dev.partial.json")
    )[:3000]
    checkpoint = str(build_tiny_model([r["title"] for r in train]))
    tokenizer = load_tokenizer(checkpoint)
    ids = {label: i for i, label in enumerate(ynat.LABELS)}

    def encode(records):
        return tokenize(
            tokenizer,
            [r["title"] for r in records],
            labels=[ids[r["label"]] for r in records],
            max_length=48,
        )

    def compute_metrics(p):
        gold = [ynat.LABELS[i] for i in p.label_ids]
        return {"macro_f1": macro_f1(gold, [ynat.LABELS[i] for i in p.predictions.argmax(-1)])}

    recipe = resolve_recipe(
        get_task("ynat"), "kluebook/tiny-roberta", "smoke", {"epochs": 2, "evals_per_epoch": 1}
    )
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=7)
    result = fine_tune(
        model, tokenizer, encode(train), encode(dev), compute_metrics, recipe, 0, tmp_path
    )
    predicted = [ynat.LABELS[i] for i in result.trainer.predict(encode(dev)).predictions.argmax(-1)]
    gold = [r["label"] for r in dev]
    majority = macro_f1(gold, [max(ynat.LABELS, key=gold.count)] * len(gold))
    score = macro_f1(gold, predicted)
    with capsys.disabled():
        print(f"\nreal YNAT dev macro F1: tiny model {score:.1f}, majority class {majority:.1f}")
    assert score > majority + 15, (score, majority)
    # The reloaded best checkpoint, predicting in dataset order, reproduces its dev score.
    assert score == pytest.approx(result.best["macro_f1"], abs=1e-6)
