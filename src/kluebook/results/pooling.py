"""Which runs a table cell pools: those of one configuration made from one set of inputs, the
current code and notebook of their task where there are such runs, else the newest (stale)."""

import json
from collections import defaultdict

from kluebook.recording.fingerprints import current_code, stale_inputs
from kluebook.recording.records import RunRecord
from kluebook.tasks import all_tasks

# The current code inputs of each task and method the records are of (None for a task that is
# gone): a prompted run executes another notebook than its task's fine-tuned runs.
Today = dict[tuple[str, str], dict | None]


def run_key(record: RunRecord) -> tuple:
    """What names one run: a success and a later failure of it share it."""
    return (record.task, record.profile, record.model, record.config, record.seed)


def code_today(records: list[RunRecord]) -> Today:
    """`fingerprints.current_code` of each task and method the records are of (None for a task
    that is gone)."""
    tasks = all_tasks()
    made = {(r.task, r.method) for r in records}
    return {
        (name, method): current_code(tasks[name], method) if name in tasks else None
        for name, method in made
    }


def stale_reason(record: RunRecord, today: Today) -> str:
    """What changed since a record was made ("" for a current one), e.g. "task code"."""
    return ", ".join(stale_inputs(record.inputs, today.get((record.task, record.method))))


def _made_from(record: RunRecord) -> str:
    """The inputs a record was made from, apart from its seed's parameters: runs that share
    them are pooled."""
    return json.dumps(record.inputs.model_dump(exclude={"parameters"}), sort_keys=True)


def _newest(batch: list[RunRecord]) -> str:
    return max(r.finished_at for r in batch)


def pooled(mine: list[RunRecord], today: Today) -> tuple[list[RunRecord], str]:
    """The runs of one configuration and task that a cell pools, and why they are stale (""
    when current): those made from today's inputs, else the newest runs' inputs."""
    batches: dict[str, list[RunRecord]] = defaultdict(list)
    for record in mine:
        batches[_made_from(record)].append(record)
    current = [b for b in batches.values() if not stale_reason(b[0], today)]
    choice = max(current or batches.values(), key=_newest)
    return sorted(choice, key=lambda r: r.seed), stale_reason(choice[0], today)
