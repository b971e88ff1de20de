"""How long the bootstrap intervals of one run take: 1,000 resamples of every metric, per task.

    python benchmarks/bootstrap_speed.py [--resamples 1000] [--tasks ynat,ner]

Each task's dev set is the real file where KLUEBOOK_DATA_DIR has it (a reduced-field copy,
`<name>.partial.json`, counts too), else generated data cut to the official dev size; the
predictions are the gold with errors of the kinds models make (`imperfect_predictions`). It
prints, per task, the dev size, where the data came from, the wall time of `run_intervals` on
one core (one BLAS thread) and the intervals of the headline metrics.
"""

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, before numpy is imported
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import random
import time
from importlib import import_module

from kluebook.common.paths import KLUE_DATA
from kluebook.scoring import bootstrap
from kluebook.scoring.predictions import index_predictions
from kluebook.tasks import Task, all_tasks, task_module

# The official v1.1 dev sizes, in each task's unit (WoS: dialogues).
DEV_SIZES = {
    "ynat": 9107,
    "sts": 519,
    "nli": 3000,
    "ner": 5000,
    "re": 7765,
    "dp": 2000,
    "mrc": 5841,
    "wos": 1000,
}
# The generator's size arguments per task (train kept tiny: only the dev set is used).
_SIZES = {
    "mrc": ("train_paragraphs", "dev_paragraphs", 3),
    "wos": ("train_dialogues", "dev_dialogues", 1),
}


def imperfect_predictions(task: str, rows: list[dict], rng: random.Random) -> list[dict]:
    """Gold prediction lines (`gold_predictions`) with errors of the kinds each task's models
    make: wrong labels, noisy scores, wrong tags and heads, tied probabilities, partial answers,
    missing slots. NER lines also get `boundary` tags, some of them entity tags."""
    data = import_module(f"kluebook.tasks.{task}.data")
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
            row["heads"] = [
                h if rng.random() > 0.2 else rng.randint(0, size + 2) for h in row["heads"]
            ]
            row["deprels"] = [
                d if rng.random() > 0.2 else rng.choice(data.DEPRELS) for d in row["deprels"]
            ]
        elif task == "mrc" and rng.random() < 0.4:
            row["answer"] = rng.choice(("", row["answer"][: max(1, len(row["answer"]) // 2)]))
        elif task == "wos" and row["state"] and rng.random() < 0.3:
            row["state"] = row["state"][1:]
    return rows


def dev_set(task: Task) -> tuple[list[dict], str]:
    """The real dev records if the data folder has them, else generated ones of official size."""
    official = KLUE_DATA / task.files["dev"]
    for path in (official, official.with_suffix(".partial" + official.suffix)):
        if path.is_file():
            return task_module(task).read_official(path), "real"
    train_key, dev_key, per = _SIZES.get(task.name, ("train_size", "dev_size", 1))
    size = DEV_SIZES[task.name]
    records = task_module(task).generate(seed=0, **{train_key: 10, dev_key: size // per + 50})[
        "dev"
    ]
    return records[:size], "generated"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=bootstrap.RESAMPLES)
    parser.add_argument("--tasks", default=",".join(DEV_SIZES))
    arguments = parser.parse_args()
    bootstrap.RESAMPLES = arguments.resamples
    print(f"{'task':<6} {'dev':>6} {'unit':<14} {'data':<10} {'seconds':>8}  intervals")
    for name in arguments.tasks.split(","):
        task = all_tasks()[name]
        records, origin = dev_set(task)
        rows = imperfect_predictions(
            name, task_module(task).gold_predictions(records), random.Random(0)
        )
        metrics = task_module(task).score(records, index_predictions(task, records, rows))
        start = time.perf_counter()  # what finish_run adds to a run: the metrics are at hand
        outcome = bootstrap.run_intervals(task, records, rows, metrics)
        seconds = time.perf_counter() - start
        shown = ", ".join(
            f"{key} [{i['low']:.2f}, {i['high']:.2f}]" for key, i in outcome["intervals"].items()
        )
        unit = task.resampling_unit.name
        print(f"{name:<6} {len(records):>6} {unit:<14} {origin:<10} {seconds:>8.2f}  {shown}")


if __name__ == "__main__":
    main()
