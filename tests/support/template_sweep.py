"""A sweep over NLI's prompt templates and demonstration seeds, as records and predictions files
that tests build: two models whose ranking flips across the templates."""

import json
import random

from conftest import valid_record

from kluebook.data.loading import data_checksum, load_split
from kluebook.recording import fingerprints
from kluebook.scoring.predictions import score_predictions
from kluebook.tasks import get_task, task_module

NLI = get_task("nli")
TEMPLATES = ("standard", "brief", "reworded")
# The share of wrong answers of each model's runs with each template: A is the better model on
# two templates, B on the third.
WRONG = {
    "org/model-a": {"standard": 0.1, "brief": 0.15, "reworded": 0.6},
    "org/model-b": {"standard": 0.6, "brief": 0.55, "reworded": 0.1},
}
SEEDS = (1, 2)


def prompted_run(root, gold, model: str, template: str, seed: int, wrong: float):
    """A prompted NLI run's record and predictions file: the gold with `wrong` of its labels
    changed, another share for each demonstration seed."""
    rng = random.Random(f"{model}/{template}/{seed}")
    lines = []
    for line in task_module(NLI).gold_predictions(gold):
        if rng.random() < wrong + 0.02 * seed:
            others = [x for x in ("entailment", "neutral", "contradiction") if x != line["label"]]
            line = {**line, "label": rng.choice(others)}
        lines.append(line)
    config = f"prompted,shots=5,template={template}"
    name = f"{model.replace('/', '--')}-{config}-seed{seed}.jsonl"
    (root / name).write_text("".join(json.dumps(line) + "\n" for line in lines))
    parameters = {"data_source": "generated", "shots": 5, "template": template, "seed": seed}
    inputs = {
        **fingerprints.current_code(NLI, "prompted", template),
        "parameters": fingerprints.text_digest(f"{model}{config}{seed}"),
        "data": "generated-data",
    }
    return valid_record(
        {
            "task": "nli",
            "model": model,
            "seed": seed,
            "method": "prompted",
            "config": config,
            "parameters": parameters,
            "inputs": inputs,
            "metrics": score_predictions(NLI, gold, lines),
            "data_checksum": data_checksum(NLI, "generated", None),
            "predictions": name,
        }
    )


def template_sweep(root) -> list:
    """The records of the sweep (every model, template and seed), their predictions in `root`."""
    gold = load_split(NLI, "dev", "generated", None)
    return [
        prompted_run(root, gold, model, template, seed, WRONG[model][template])
        for model in WRONG
        for template in TEMPLATES
        for seed in SEEDS
    ]
