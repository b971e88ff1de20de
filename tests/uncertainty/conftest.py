"""Smoke dev sets with imperfect predictions of every task, for the bootstrap tests."""

import random

import pytest

from kluebook.tasks import all_tasks


def _noisy(task: str, records: list[dict], rows: list[dict], rng: random.Random) -> list[dict]:
    """The gold prediction lines with errors of the kinds each task's models make."""
    module = all_tasks()[task].module
    data = __import__(f"kluebook.tasks.{task}.data", fromlist=["_"])
    for row in rows:
        if task in ("ynat", "nli") and rng.random() < 0.3:
            row["label"] = rng.choice(data.LABELS)
        elif task == "sts":
            row["score"] = row["score"] + rng.gauss(0, 1.2)
        elif task == "ner":
            row["tags"] = [t if rng.random() > 0.1 else rng.choice(data.TAGS) for t in row["tags"]]
            row["boundary"] = [rng.choice(("O", "O", "B-PS", "I-PS")) for _ in range(2)]
        elif task == "re":
            logits = [rng.choice((0, 0, 1, 2)) for _ in data.RELATIONS]  # many tied scores
            if rng.random() < 0.5:
                logits[data.RELATIONS.index(row["label"])] += 2
            total = sum(2.0**x for x in logits)
            row["probs"] = [2.0**x / total for x in logits]
            if rng.random() < 0.3:
                row["label"] = rng.choice(data.RELATIONS)
        elif task == "dp":
            size = len(row["heads"])
            row["heads"] = [h if rng.random() > 0.2 else rng.randint(0, size + 2) for h in row["heads"]]
            row["deprels"] = [d if rng.random() > 0.2 else rng.choice(data.DEPRELS) for d in row["deprels"]]
        elif task == "mrc" and rng.random() < 0.4:
            row["answer"] = rng.choice(("", row["answer"][: max(1, len(row["answer"]) // 2)]))
        elif task == "wos" and row["state"] and rng.random() < 0.3:
            row["state"] = row["state"][1:]
    del module
    return rows


@pytest.fixture(scope="session")
def smoke_dev():
    """task -> (gold records, noisy prediction lines) on a small generated dev set."""
    cache = {}

    def get(task: str):
        if task not in cache:
            module = all_tasks()[task].module
            records = module.generate(seed=5, **all_tasks()[task].smoke_data)["dev"]
            rows = _noisy(task, records, module.gold_predictions(records), random.Random(7))
            cache[task] = records, rows
        return cache[task]

    return get
