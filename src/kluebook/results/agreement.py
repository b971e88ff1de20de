"""Where runs agree: each dev item right or wrong for each, the 2x2 table of a pair (both
right, only A, only B, both wrong) and the items on which one is right and the other wrong.

An item is a gold record, paired across the two runs as `kluebook compare` pairs them (both
runs' lines matched to the gold by `index_predictions`), and it is right as the statistics of its
paired bootstrap count it (`bootstrap.fast_statistics`, one per item): right on every metric of
the task that counts items, a mean (accuracy, EM, JGA: all its gold keys right) or an F1 (its
true positives equal to its gold and its predicted counts: nothing missed, nothing extra). A
metric that does not count items (Pearson r, AUPRC) decides no item.
"""

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from kluebook.common.errors import KluebookError
from kluebook.prompting.answering import ITEM_PROMPT, RAW_ANSWER, UNPARSABLE
from kluebook.results.compare import Side
from kluebook.scoring import bootstrap
from kluebook.scoring.metric_forms import F1, Mean
from kluebook.scoring.switches import NO_SWITCHES
from kluebook.tasks import Task, task_module

# The most characters of a prediction a page shows.
SHOWN = 120
# Fields of a prediction line that say how sure the model was, not what it predicted.
CONFIDENCE_FIELDS = ("probability", "probs", "choice_logprobs")
# Fields of a prompted run's line: what the model wrote, whether it could not be read, and the
# item's block of its prompt.
PROMPTED_FIELDS = (RAW_ANSWER, UNPARSABLE, ITEM_PROMPT)


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


def answer_fields(line: dict) -> dict:
    """The fields of a prediction line that are the answer (no key, no confidence, nothing a
    prompted run keeps beside it)."""
    left_out = ("guid", "turn", *CONFIDENCE_FIELDS, *PROMPTED_FIELDS)
    return {k: v for k, v in line.items() if k not in left_out}


def _answer_text(answer: dict) -> str:
    """One line's answer: its value where it has one field (a label, a score), else JSON."""
    if len(answer) == 1:
        value = next(iter(answer.values()))
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return json.dumps(answer, ensure_ascii=False)


def prediction_text(lines: list[dict]) -> str:
    """What a run predicted for one gold record (the answers of its lines), shortened."""
    text = "; ".join(_answer_text(answer_fields(line)) for line in lines)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


@dataclass(frozen=True)
class RunAnswers:
    """One run's predictions on a dev set, with the scoring switches it was scored with."""

    predictions: dict
    switches: Mapping[str, object]


@dataclass(frozen=True)
class DevSetAgreement:
    """Runs of one task on the same dev set, item by item: each gold record's key (the first of
    its keys), its gold and each run's prediction (`prediction_text`), and whether each run got
    it right (`items_right`); any two runs' 2x2 table and the items they disagree on."""

    keys: list
    gold: list[str]
    predicted: list[list[str]]
    right: list[np.ndarray]

    def counts(self, a: int, b: int) -> Agreement:
        return agreement(self.right[a], self.right[b])

    def disagreements(self, a: int, b: int) -> list[int]:
        """The items (indexes) on which run `a` is right and run `b` wrong, or the reverse."""
        return np.flatnonzero(self.right[a] != self.right[b]).tolist()


def dev_set_agreement(task: Task, gold: list[dict], runs: Iterable[RunAnswers]) -> DevSetAgreement:
    """The runs' answers on the dev records `gold` (each run's predictions keyed to them by
    `index_predictions`), item by item; the runs are taken one at a time, so an iterator of
    them holds one run's predictions at once."""
    module = task_module(task)
    truth = dict(zip(module.gold_keys(gold), module.gold_predictions(gold), strict=True))
    keys = [module.gold_keys([record]) for record in gold]
    predicted, right = [], []
    for run in runs:
        lines = run.predictions
        predicted.append([prediction_text([lines[key] for key in mine]) for mine in keys])
        right.append(items_right(task, gold, lines, run.switches))
    return DevSetAgreement(
        keys=[mine[0] for mine in keys],
        gold=[prediction_text([truth[key] for key in mine]) for mine in keys],
        predicted=predicted,
        right=right,
    )
