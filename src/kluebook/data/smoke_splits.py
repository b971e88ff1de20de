"""The train and dev splits of a task's smoke-data generator, drawn from one seeded stream."""

import random
from collections.abc import Callable


def train_and_dev(
    seed: int, split: Callable[[random.Random, str, int], list[dict]], train: int, dev: int
) -> dict[str, list[dict]]:
    """`split(rng, name, size)` for train, then dev, from one random stream seeded with `seed`:
    the same seed gives the same data on any machine."""
    rng = random.Random(seed)
    return {"train": split(rng, "train", train), "dev": split(rng, "dev", dev)}


def numbered_splits(
    seed: int, guid: str, record: Callable[[random.Random, str], dict], train: int, dev: int
) -> dict[str, list[dict]]:
    """`train_and_dev` of records made one at a time by `record(rng, split)`, each after its
    guid: `guid` formatted with the split and the record's index, e.g.
    `"klue-xx-v1_{split}_{index:05d}"`."""

    def split(rng: random.Random, name: str, size: int) -> list[dict]:
        return [
            {"guid": guid.format(split=name, index=index), **record(rng, name)}
            for index in range(size)
        ]

    return train_and_dev(seed, split, train, dev)
