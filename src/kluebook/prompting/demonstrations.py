"""The k demonstrations of a prompted run: drawn from the train split with a recorded seed.

One draw serves every query of the run, so the run's prompts differ only in their query, the
first dev item's prompt on the run page shows exactly the demonstrations every item saw, and a
seed is a run parameter like the fine-tuning seeds (another seed, another draw).
"""

import random

from kluebook.common.errors import KluebookError
from kluebook.tasks.prompt_items import PromptItem


def draw_demonstrations(train: list[PromptItem], shots: int, seed: int) -> list[PromptItem]:
    """`shots` items of `train`, drawn without replacement by `seed`, in the order drawn."""
    if shots < 0:
        raise KluebookError(f"shots={shots}: the number of demonstrations cannot be negative")
    if shots > len(train):
        raise KluebookError(
            f"shots={shots} is more than the {len(train)} items of the train split: "
            f"use at most {len(train)}"
        )
    return random.Random(seed).sample(train, shots)
