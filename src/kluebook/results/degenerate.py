"""Why a prompted run's number is not a model's skill, read off its record: its answers are one
answer or near it, most of them could not be read, its score cannot be told from a trivial
predictor's (always the run's own most frequent answer, or the train split's most frequent
one) within its interval, or a run of another model gave the very same answers."""

from collections import defaultdict

from kluebook.recording.records import RunRecord
from kluebook.tasks import Task

NEAR_CONSTANT = 0.9  # the share of one answer from which a run is near-constant
MOSTLY_UNREAD = 0.5  # the share of unparsable answers from which it is mostly unread
TRIVIAL = {"constant": "always answering", "majority": "always answering the train majority"}
SHOWN = 30  # characters of an answer a reason quotes


def shown(answer: str) -> str:
    """An answer as a reason quotes it: cut to `SHOWN` characters."""
    return repr(answer if len(answer) <= SHOWN else answer[:SHOWN] + "…")


def degenerate_reasons(task: Task, record: RunRecord) -> list[str]:
    """The reasons, in words, why `record`'s numbers should be read as degenerate (none for a
    fine-tuned run, or a prompted run recorded before these facts were)."""
    prompted = record.outcome.prompted if record.outcome else None
    if prompted is None or prompted.top_answer_share is None:
        return []
    reasons = []
    if prompted.top_answer_share >= NEAR_CONSTANT:
        reasons.append(
            f"{prompted.top_answer_share:.0%} of its answers are one answer "
            f"({shown(prompted.top_answer)})"
        )
    if prompted.fallback_share >= MOSTLY_UNREAD:
        reasons.append(f"{prompted.fallback_share:.0%} of its answers could not be parsed")
    intervals = record.outcome.intervals or {}
    for name, baseline in (prompted.baselines or {}).items():
        for metric in task.metrics:
            value, interval = baseline.metrics.get(metric.key), intervals.get(metric.key)
            if value is None or interval is None or not interval.low <= value <= interval.high:
                continue
            reasons.append(
                f"its {metric.label} cannot be told from {TRIVIAL[name]} {shown(baseline.answer)} "
                f"({value:.2f}, inside its 95% interval {interval.low:.2f}–{interval.high:.2f})"
            )
    return reasons


def same_answers(records: list[RunRecord]) -> dict[int, list[str]]:
    """{id of a record: the other models whose runs gave the same answers on the same items}."""
    groups: dict[tuple, list[RunRecord]] = defaultdict(list)
    for record in records:
        prompted = record.outcome.prompted if record.outcome else None
        if prompted is not None and prompted.answers_digest:
            key = (record.task, record.outcome.data_checksum, prompted.answers_digest)
            groups[key].append(record)
    twins = {}
    for group in groups.values():
        models = {r.model for r in group}
        for record in group:
            others = sorted(models - {record.model})
            if others:
                twins[id(record)] = [f"the same answers as {model}" for model in others]
    return twins
