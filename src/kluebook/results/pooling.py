"""Which runs a table cell pools: those of one configuration made from one set of inputs, the
current code and notebook of their task where there are such runs, else the newest (stale).

The errata are versioned apart from the code (`fingerprints.VERSIONED_DATA`): a record made
under another errata version than today's is stale for its corrected values only
(`errata_stale`), unless its items were corrected by that version, which makes it all stale."""

import json
from collections import defaultdict

from kluebook.errata.manifest import manifest
from kluebook.methods.registry import method_named
from kluebook.recording.fingerprints import current_code, stale_inputs
from kluebook.recording.records import RunRecord
from kluebook.tasks import all_tasks
from kluebook.tasks.prompt_items import DEFAULT_TEMPLATE

# The current code inputs of each task, method and prompt template the records are of (None for
# a task that is gone): a prompted run executes another notebook than its task's fine-tuned
# runs, and reads one of its task's templates.
Today = dict[tuple[str, str, str], dict | None]


def run_key(record: RunRecord) -> tuple:
    """What names one run: a success and a later failure of it share it."""
    return (record.task, record.profile, record.model, record.config, record.seed)


def configuration_key(record: RunRecord) -> tuple:
    """What names one configuration of a task, whose seeds a cell pools."""
    return (record.profile, record.model, record.data_source, record.config)


def made_with(record: RunRecord) -> tuple[str, str, str]:
    """The task, method and prompt template ("" for a fine-tuned run) a record was made with."""
    template = method_named(record.method).template_of(record.parameters)
    return record.task, record.method, template


def code_today(records: list[RunRecord]) -> Today:
    """`fingerprints.current_code` of each task, method and template the records are of (None
    for a task that is gone)."""
    tasks = all_tasks()
    return {
        (name, method, template): (
            current_code(tasks[name], method, template or DEFAULT_TEMPLATE)
            if name in tasks
            else None
        )
        for name, method, template in {made_with(r) for r in records}
    }


# The input named when the errata manifest's version changed since a record was made.
ERRATA_VERSION = "errata version"


def errata_stale(record: RunRecord) -> str:
    """ERRATA_VERSION when the record's errata (its corrected values, and any data errata its
    items carry) are of another manifest version than today's; "" otherwise."""
    errata = record.outcome.errata if record.outcome else None
    return ERRATA_VERSION if errata and errata.version != manifest().version else ""


def stale_reason(record: RunRecord, today: Today) -> str:
    """What changed since a record was made ("" for a current one), e.g. "task code"; for a run
    on items corrected by an errata version that is not today's, the errata version too."""
    changed = stale_inputs(record.inputs, today.get(made_with(record)))
    if record.outcome and record.outcome.errata and record.outcome.errata.applied:
        changed += filter(None, [errata_stale(record)])
    return ", ".join(changed)


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
