"""What each switch of book/deviations.md changes, measured on the smoke data.

    python benchmarks/deviations.py [--only ynat sts re dp mrc ner] [--seeds 1] [--spread 1 2]

Every measurement fine-tunes the offline tiny stand-in on the generated smoke data with the
smoke recipe (`kluebook.training.recipes.SMOKE_RECIPE`), once as the smoke profile has it and once
with one switch changed, exactly as the task notebooks call `fine_tune`. The training sets are cut
(`--train`) to keep the whole script to a few minutes on a laptop CPU. It prints one Markdown
table row per measurement: the switch and its value, the dev score of the best checkpoint, the
step of the last dev evaluation out of the run's steps, and the wall time. Each switch is run
with `--seeds`; the unchanged smoke recipe with `--spread`, to show how far two seeds alone
move the score.

These are numbers of a randomly initialised 2-layer model on generated text: they show what a
switch does to a run (when it scores, where it stops, how long it takes, whether the metric
moves beyond the spread between seeds), not what it does to a KLUE number.
"""

import argparse
import math
import tempfile
import time
from pathlib import Path

import datasets
import torch
from scipy.special import softmax
from transformers import (
    AutoModelForQuestionAnswering,
    AutoModelForSequenceClassification,
    AutoModelForTokenClassification,
    DataCollatorForTokenClassification,
)

from kluebook.data.loading import generated_data_dir
from kluebook.notebook.steps import seed_everything
from kluebook.tasks import get_task, task_module
from kluebook.training.fine_tuning import fine_tune, load_tokenizer, steps_per_epoch, tokenize
from kluebook.training.recipes import resolve_recipe
from kluebook.training.tiny_model import build_tiny_model

SMOKE_MODEL = "kluebook/tiny-roberta"
# The official optimizer, in place of the smoke recipe's fused torch AdamW.
OFFICIAL_OPTIMIZER = {"optimizer": "adamw_transformers3", "fused_adamw": False}


def records(task_name: str, split: str, limit: int | None = None) -> list[dict]:
    task = get_task(task_name)
    rows = task_module(task).read_official(generated_data_dir(task) / task.files[split])
    return rows[:limit] if limit else rows


def checkpoints(name: str) -> Path:
    """Where a measured run keeps its checkpoints: a folder of the system's temporary space."""
    return Path(tempfile.gettempdir()) / f"kluebook-deviations-{name}"


def smoke_recipe(task_name: str, **changes):
    return resolve_recipe(get_task(task_name), SMOKE_MODEL, "smoke", changes)


def summary(result, recipe, train_size: int, metric: str, started: float) -> dict:
    total = math.ceil(steps_per_epoch(train_size, recipe) * recipe.epochs)
    return {
        "score": result.best[metric],
        "best step": result.best["step"],
        "last evaluation": f"{result.last['step']} of {total}",
        "seconds": round(time.perf_counter() - started),
    }


def ynat_run(recipe, seed: int, train_limit: int) -> dict:
    from kluebook.tasks.ynat.data import LABELS
    from kluebook.tasks.ynat.metric import macro_f1

    train, dev = records("ynat", "train", train_limit), records("ynat", "dev")
    checkpoint = str(build_tiny_model([r["title"] for r in train]))
    tokenizer = load_tokenizer(checkpoint)
    ids = {label: i for i, label in enumerate(LABELS)}

    def encode(rows):
        labels = [ids[r["label"]] for r in rows]
        return tokenize(tokenizer, [r["title"] for r in rows], labels=labels, max_length=64)

    def compute_metrics(p):
        gold = [LABELS[i] for i in p.label_ids]
        return {"macro_f1": macro_f1(gold, [LABELS[i] for i in p.predictions.argmax(-1)])}

    started = time.perf_counter()
    seed_everything(seed)
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=7)
    result = fine_tune(
        model,
        tokenizer,
        encode(train),
        encode(dev),
        compute_metrics,
        recipe,
        seed,
        checkpoints("ynat"),
    )
    return summary(result, recipe, len(train), "macro_f1", started)


def sts_run(recipe, seed: int, train_limit: int) -> dict:
    from kluebook.tasks.sts.data import target
    from kluebook.tasks.sts.metric import pearson_r

    train, dev = records("sts", "train", train_limit), records("sts", "dev")
    checkpoint = str(
        build_tiny_model([r["sentence1"] for r in train] + [r["sentence2"] for r in train])
    )
    tokenizer = load_tokenizer(checkpoint)

    def encode(rows):
        return tokenize(
            tokenizer,
            [r["sentence1"] for r in rows],
            [r["sentence2"] for r in rows],
            labels=[float(target(r)) for r in rows],
            max_length=64,
        )

    def compute_metrics(p):
        r = pearson_r(p.label_ids.reshape(-1), p.predictions.reshape(-1))
        return {"pearsonr": 0.0 if r is None else r}

    started = time.perf_counter()
    seed_everything(seed)
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=1)
    result = fine_tune(
        model,
        tokenizer,
        encode(train),
        encode(dev),
        compute_metrics,
        recipe,
        seed,
        checkpoints("sts"),
    )
    return summary(result, recipe, len(train), "pearsonr", started)


def re_run(recipe, seed: int, train_limit: int) -> dict:
    from kluebook.tasks.re.data import RELATIONS, add_marker_tokens, mark_entities, tokenize_marked
    from kluebook.tasks.re.metric import micro_f1

    train, dev = records("re", "train", train_limit), records("re", "dev")
    checkpoint = str(build_tiny_model([r["sentence"] for r in train]))
    tokenizer = load_tokenizer(checkpoint)
    add_marker_tokens(tokenizer)
    ids = {label: i for i, label in enumerate(RELATIONS)}

    def encode(rows):
        inputs = [tokenize_marked(tokenizer, mark_entities(r), 64) for r in rows]
        return datasets.Dataset.from_dict(
            {
                "input_ids": inputs,
                "attention_mask": [[1] * len(i) for i in inputs],
                "labels": [ids[r["label"]] for r in rows],
            }
        )

    def compute_metrics(p):
        probs = softmax(p.predictions, axis=-1)
        return {"micro_f1": micro_f1(p.label_ids, probs.argmax(-1), num_classes=len(RELATIONS))}

    started = time.perf_counter()
    seed_everything(seed)
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=30)
    model.resize_token_embeddings(len(tokenizer))
    result = fine_tune(
        model,
        tokenizer,
        encode(train),
        encode(dev),
        compute_metrics,
        recipe,
        seed,
        checkpoints("re"),
    )
    return summary(result, recipe, len(train), "micro_f1", started)


def dp_run(recipe, seed: int, train_limit: int) -> dict:
    """Trains once; scores the best checkpoint with both rules for padded head candidates."""
    from kluebook.tasks.dp.features import encode_parser_input
    from kluebook.tasks.dp.parser import (
        TINY_ENCODER_SIZES,
        DependencyParser,
        ParserTrainer,
        decode_predictions,
        parser_metrics,
    )

    train, dev = records("dp", "train", train_limit), records("dp", "dev")
    checkpoint = str(build_tiny_model([r["sentence"] for r in train]))
    tokenizer = load_tokenizer(checkpoint)

    def encode(rows):
        return datasets.Dataset.from_list([encode_parser_input(tokenizer, r, 64) for r in rows])

    started = time.perf_counter()
    seed_everything(seed)
    parser = DependencyParser.from_pretrained(checkpoint, **TINY_ENCODER_SIZES)
    result = fine_tune(
        parser,
        tokenizer,
        encode(train),
        encode(dev),
        parser_metrics,
        recipe,
        seed,
        checkpoints("dp"),
        trainer_class=ParserTrainer,
    )
    row = summary(result, recipe, len(train), "las", started)
    for rule in ("zero", "masked"):
        parser.padded_head_score = rule
        prediction = result.trainer.predict(encode(dev))
        sentences = decode_predictions(prediction)
        beyond = sum(h > len(heads) for heads, _ in sentences for h in heads)
        row[f"LAS, {rule}"] = round(parser_metrics(prediction)["las"], 2)
        row[f"heads on padding, {rule}"] = beyond
    return row


def mrc_run(recipe, seed: int, train_limit: int) -> dict:
    from kluebook.tasks.mrc import answer_search, qa

    train, dev = records("mrc", "train", train_limit), records("mrc", "dev")
    corpus = [r["context"] for r in train] + [r["question"] for r in train]
    checkpoint = str(build_tiny_model(corpus))
    tokenizer = load_tokenizer(checkpoint)

    def as_dataset(features, labels):
        columns = {k: v for k, v in features.items() if k in tokenizer.model_input_names}
        return datasets.Dataset.from_dict({**columns, **labels})

    # The labels and the n-best search follow the recipe's switches.
    answer_labels = recipe.switches()["mrc_answer_labels"]
    train_features = qa.train_features(
        train, tokenizer, recipe.max_length, answer_labels=answer_labels
    )
    labels = {k: train_features[k] for k in ("start_positions", "end_positions")}
    dev_features, dev_windows = qa.eval_features(dev, tokenizer, recipe.max_length)
    dev_set = as_dataset(dev_features, qa.window_labels(dev, dev_windows))
    started = time.perf_counter()
    seed_everything(seed)
    model = AutoModelForQuestionAnswering.from_pretrained(checkpoint)
    result = fine_tune(
        model,
        tokenizer,
        as_dataset(train_features, labels),
        dev_set,
        answer_search.metrics_function(dev, dev_windows, recipe.pad_to_max_length),
        recipe,
        seed,
        checkpoints("mrc"),
    )
    return summary(result, recipe, len(train_features["input_ids"]), "rouge_w", started)


def ner_run(recipe, seed: int, train_limit: int) -> dict:
    """Trains once with every batch padded to max_length; scores the best checkpoint with the
    boundary predictions and with `O` in their place."""
    from kluebook.tasks.ner.data import TAGS, boundary_tags, encode_tagged_sentence
    from kluebook.tasks.ner.data import project_to_characters as project
    from kluebook.tasks.ner.metric import ner_scores

    train, dev = records("ner", "train", train_limit), records("ner", "dev")
    checkpoint = str(build_tiny_model(["".join(r["chars"]) for r in train]))
    tokenizer = load_tokenizer(checkpoint)

    def encode(rows):
        encoded = [encode_tagged_sentence(tokenizer, r["chars"], r["tags"], 64) for r in rows]
        spans = [e.pop("char_spans") for e in encoded]
        return datasets.Dataset.from_list(encoded), spans

    dev_data, dev_spans = encode(dev)

    def tags(logits):
        predicted = logits.argmax(-1)
        return [
            project(r["chars"], s, [TAGS[i] for i in row[1 : 1 + len(s)]])
            for r, s, row in zip(dev, dev_spans, predicted, strict=True)
        ]

    def scores(logits, boundaries=None):
        gold = [r["tags"] for r in dev]
        return ner_scores([r["chars"] for r in dev], gold, tags(logits), boundaries)

    def compute_metrics(p):
        return scores(p.predictions)

    started = time.perf_counter()
    seed_everything(seed)
    model = AutoModelForTokenClassification.from_pretrained(checkpoint, num_labels=len(TAGS))
    result = fine_tune(
        model,
        tokenizer,
        encode(train)[0],
        dev_data,
        compute_metrics,
        recipe,
        seed,
        checkpoints("ner"),
        data_collator=DataCollatorForTokenClassification(tokenizer),
    )
    row = summary(result, recipe, len(train), "char_f1", started)
    logits = result.trainer.predict(dev_data).predictions
    ends = boundary_tags(logits)
    for name, boundaries in (("O at the ends", None), ("model's ends", ends)):
        measured = scores(logits, boundaries)
        row[f"char F1, {name}"] = round(measured["char_f1"], 2)
        row[f"entity F1, {name}"] = round(measured["entity_f1"], 2)
    row["sentences with a non-O end"] = sum(end != ("O", "O") for end in ends)
    return row


# (task, run function, training examples, [(label, switch changes)])
MEASUREMENTS = {
    "ynat": (
        ynat_run,
        600,
        [
            ("smoke profile as it is", {}),
            ("eval_schedule lightning", {"eval_schedule": "lightning"}),
            (
                "lr_schedule official + optimizer adamw_transformers3",
                {"lr_schedule": "official", **OFFICIAL_OPTIMIZER},
            ),
            ("optimizer adamw_transformers3", OFFICIAL_OPTIMIZER),
            ("group_by_length false", {"group_by_length": False}),
            ("pad_to_max_length true", {"pad_to_max_length": True}),
            ("early_stopping_patience 5", {"early_stopping_patience": 5}),
        ],
    ),
    "sts": (
        sts_run,
        400,
        [
            ("smoke profile as it is", {}),
            ("early_stopping_patience 5", {"early_stopping_patience": 5}),
        ],
    ),
    "re": (
        re_run,
        None,  # RE needs the whole smoke set and its 40 epochs to learn at all
        [
            ("smoke profile as it is", {}),
            ("added_token_init normal", {"added_token_init": "normal"}),
            (
                "official schedule and optimizer",
                {"lr_schedule": "official", **OFFICIAL_OPTIMIZER},
            ),
            (
                "official schedule and optimizer, lr_schedule_gpus 2",
                {"lr_schedule": "official", **OFFICIAL_OPTIMIZER} | {"lr_schedule_gpus": 2},
            ),
        ],
    ),
    "dp": (
        dp_run,
        300,
        [
            ("smoke profile as it is", {}),
            ("dp_scorer_init official", {"dp_scorer_init": "official"}),
        ],
    ),
    "mrc": (
        mrc_run,
        150,
        [
            ("smoke profile as it is", {}),
            ("pad_to_max_length true", {"pad_to_max_length": True}),
        ],
    ),
    "ner": (
        ner_run,
        400,
        [("smoke profile, batches padded to max_length", {"pad_to_max_length": True})],
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="*", default=list(MEASUREMENTS), help="tasks to measure")
    parser.add_argument("--seeds", nargs="*", type=int, default=[1], help="seeds of a switch")
    parser.add_argument(
        "--spread", nargs="*", type=int, default=[1, 2], help="seeds of the unchanged recipe"
    )
    args = parser.parse_args()
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    for task_name in args.only:
        run, limit, cases = MEASUREMENTS[task_name]
        for label, changes in cases:
            for seed in args.spread if not changes else args.seeds:
                row = run(smoke_recipe(task_name, **changes), seed, limit)
                cells = " | ".join(f"{k}: {v}" for k, v in row.items())
                print(f"| {task_name} | {label} | seed {seed} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
