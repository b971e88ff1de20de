"""Where two runs agree: each dev item right or wrong for each, the 2x2 table of the pair (both
right, only A, only B, both wrong) and the items on which one is right and the other wrong.

An item is a gold record, paired across the two runs as `kluebook compare` pairs them (both
runs' lines matched to the gold by `index_predictions`), and it is right as the statistics of its
paired bootstrap count it (`bootstrap.fast_statistics`, one per item): right on every metric of
the task that counts items, a mean (accuracy, EM, JGA: all its gold keys right) or an F1 (its
true positives equal to its gold and its predicted counts: nothing missed, nothing extra). A
metric that does not count items (Pearson r, AUPRC) decides no item.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from kluebook.common.errors import KluebookError
from kluebook.results.compare import Side
from kluebook.scoring import bootstrap
from kluebook.scoring.metric_forms import F1, Mean
from kluebook.scoring.switches import NO_SWITCHES
from kluebook.tasks import Task

# The most characters of a prediction a page shows.
SHOWN = 120


def items_right(
    task: Task, gold: list[dict], predictions: dict, switches: Mapping[str, object] = NO_SWITCHES
) -> np.ndarray:
    """Whether each gold record is right (bool per record), as the paired bootstrap counts it."""
    forms = bootstrap.fast_statistics(task, gold, predictions, switches)
    right = np.ones(len(gold), dtype=bool)
    counted = False
    for metric in task.metrics:
        form = forms.get(metric.key)
        if isinstance(form, Mean):
            right &= np.isclose(form.totals, form.counts)
        elif isinstance(form, F1):
            tp, truth, guess = (
                np.asarray(a).reshape(len(gold), -1) for a in (form.tp, form.gold, form.pred)
            )
            right &= (tp == truth).all(axis=1) & (tp == guess).all(axis=1)
        else:
            continue
        counted = True
    if not counted:
        raise KluebookError(f"{task.name}: no metric counts its items right or wrong")
    return right


@dataclass(frozen=True)
class Agreement:
    """The 2x2 table of two runs on the same items."""

    both: int
    only_a: int
    only_b: int
    neither: int

    @property
    def items(self) -> int:
        return self.both + self.only_a + self.only_b + self.neither


def agreement(right_a: np.ndarray, right_b: np.ndarray) -> Agreement:
    return Agreement(
        int(np.sum(right_a & right_b)),
        int(np.sum(right_a & ~right_b)),
        int(np.sum(~right_a & right_b)),
        int(np.sum(~right_a & ~right_b)),
    )


def side_agreements(task: Task, gold: list[dict], a: Side, b: Side) -> list[Agreement]:
    """The 2x2 table of each seed pair of a comparison (A's i-th seed and B's), on the items
    and with the switches its paired test used."""
    return [
        agreement(
            items_right(task, gold, pa, a.switches),
            items_right(task, gold, pb, b.switches),
        )
        for pa, pb in zip(a.predictions, b.predictions, strict=False)
    ]


def agreement_text(counts: list[Agreement]) -> str:
    """The 2x2 tables below `kluebook compare`'s, one line per seed pair."""
    lines = ["", "items right (2x2, per seed pair): both, only A, only B, neither"]
    for number, c in enumerate(counts, start=1):
        lines.append(
            f"seed pair {number}: {c.both:>6} {c.only_a:>6} {c.only_b:>6} {c.neither:>6}"
            f"   of {c.items}"
        )
    return "\n".join(lines)


def prediction_text(task: Task, record: dict, predictions: dict) -> str:
    """What a run predicted for one gold record (its lines but their guid), shortened."""
    lines = [predictions[key] for key in task.module.gold_keys([record])]
    shown = [{k: v for k, v in line.items() if k != "guid"} for line in lines]
    text = "; ".join(json.dumps(line, ensure_ascii=False) for line in shown)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"
