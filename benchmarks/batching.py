"""Padding waste and epoch time of the tiny model under three batching schemes.

    python benchmarks/batching.py [--examples 4000]

Text: the real YNAT training headlines when KLUEBOOK_DATA_DIR holds them, the generated smoke
data otherwise. Schemes: every batch padded to max_length 128 (the official code), dynamic
padding of random batches, and dynamic padding of length-grouped batches (this project's
default, transformers' LengthGroupedSampler). The smoke book's own timings (install, runs, site,
rebuild, per task) are benchmarks/book_build.py's.
"""

import argparse
import time

import torch
from transformers import AutoModelForSequenceClassification, DataCollatorWithPadding
from transformers.trainer_pt_utils import LengthGroupedSampler

from kluebook.common.paths import KLUE_DATA
from kluebook.data.loading import generated_data_dir
from kluebook.tasks import get_task
from kluebook.tasks.ynat import data as ynat
from kluebook.training.fine_tuning import load_tokenizer
from kluebook.training.tiny_model import build_tiny_model

BATCH_SIZE = 32
MAX_LENGTH = 128


def headlines() -> tuple[list[dict], str]:
    for name in ("ynat-v1.1_train.json", "ynat-v1.1_train.partial.json"):
        real = KLUE_DATA / "ynat-v1.1" / name
        if real.is_file():
            return ynat.read_official(real), "real YNAT train"
    task = get_task("ynat")
    return ynat.read_official(generated_data_dir(task) / task.files["train"]), "generated YNAT"


def batches(scheme: str, lengths: list[int]) -> list[list[int]]:
    generator = torch.Generator().manual_seed(0)
    if scheme == "grouped":
        order = list(LengthGroupedSampler(BATCH_SIZE, lengths=lengths, generator=generator))
    else:
        order = torch.randperm(len(lengths), generator=generator).tolist()
    return [order[i : i + BATCH_SIZE] for i in range(0, len(order), BATCH_SIZE)]


def real_token_share(scheme: str, lengths: list[int]) -> float:
    real = padded = 0
    for batch in batches(scheme, lengths):
        width = MAX_LENGTH if scheme == "fixed" else max(lengths[i] for i in batch)
        real += sum(lengths[i] for i in batch)
        padded += width * len(batch)
    return real / padded


def epoch_seconds(scheme: str, features: list[dict], checkpoint: str, tokenizer) -> float:
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=7)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    padding = {"padding": "max_length", "max_length": MAX_LENGTH} if scheme == "fixed" else {}
    collator = DataCollatorWithPadding(tokenizer, **padding)
    lengths = [len(f["input_ids"]) for f in features]
    start = time.perf_counter()
    for batch in batches(scheme, lengths):
        inputs = collator([features[i] for i in batch])
        loss = model(**inputs).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--examples", type=int, default=4000, help="headlines timed per epoch")
    args = parser.parse_args()

    records, source = headlines()
    titles = [r["title"] for r in records]
    checkpoint = str(build_tiny_model(titles))
    tokenizer = load_tokenizer(checkpoint)
    encoded = tokenizer(titles, truncation=True, max_length=MAX_LENGTH)
    lengths = [len(ids) for ids in encoded["input_ids"]]
    features = [{"input_ids": ids, "labels": 0} for ids in encoded["input_ids"][: args.examples]]
    print(
        f"text: {source}, {len(titles):,} headlines, "
        f"mean {sum(lengths) / len(lengths):.1f} tokens, batch size {BATCH_SIZE}, "
        f"torch threads {torch.get_num_threads()}"
    )
    print(f"{'scheme':<34}{'real tokens':>12}{'epoch time (s)':>16}")
    names = {
        "fixed": "padded to 128 (official)",
        "random": "dynamic padding, random batches",
        "grouped": "dynamic padding, length-grouped",
    }
    for scheme, name in names.items():
        share = real_token_share(scheme, lengths)
        seconds = epoch_seconds(scheme, features, checkpoint, tokenizer)
        print(f"{name:<34}{share:>11.1%}{seconds:>16.2f}")
    print(f"(epoch time over the first {len(features):,} headlines; real-token share over all)")


if __name__ == "__main__":
    main()
