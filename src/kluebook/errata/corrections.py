"""What the errata do to a run's numbers, from its predictions: each metric erratum's corrected
value (a variant the task's scorer computes beside the official one), and each label erratum's
rescoring of the same predictions against the corrected gold (where the run's dev file is the
one the erratum names). Text errata change the items: their numbers come from runs on the
corrected items (`corrected_items`), never from rescoring."""

from collections.abc import Mapping, Sequence

from kluebook.common.errors import KluebookError
from kluebook.errata.edits import apply_edits
from kluebook.errata.manifest import DATA_KINDS, Erratum, manifest
from kluebook.scoring.predictions import score_predictions
from kluebook.scoring.switches import NO_SWITCHES
from kluebook.tasks import Task


def data_errata(task: Task, split: str, file_sha256: str | None, kinds=DATA_KINDS) -> list[Erratum]:
    """The applied data errata of these `kinds` for a split read from the file whose SHA-256
    is `file_sha256` (none for generated or hub data, whose items they do not name)."""
    return [
        e
        for e in manifest().of_task(task.name)
        if e.kind in kinds and e.split == split and e.applied and e.file.sha256 == file_sha256
    ]


def corrected_items(task: Task, records: Sequence[dict], file_sha256: str, version: str):
    """The dev `records` with every data erratum of `version` applied, and their ids. A version
    that is not the manifest's, or records that are not the named file's, is a one-line error."""
    if version != manifest().version:
        raise KluebookError(
            f"errata version {version!r} is not this kluebook's ({manifest().version})"
        )
    applied = data_errata(task, "dev", file_sha256)
    if not applied:
        raise KluebookError(
            f"no data erratum of {task.name} applies to this dev file: errata name the official "
            "v1.1 files by their SHA-256 (--data-source official)"
        )
    for erratum in applied:
        records = apply_edits(records, erratum.edits, erratum.id)
    return records, [e.id for e in applied]


def corrected_values(
    task: Task,
    gold: Sequence[dict],
    rows: Sequence[dict],
    metrics: Mapping[str, float | None],
    file_sha256: str | None,
    applied: Sequence[str] = (),
    switches: Mapping[str, object] = NO_SWITCHES,
) -> dict[str, dict[str, float | None]]:
    """{erratum id: {official metric key: corrected value}} of one run: its metric errata read
    off `metrics`, its label errata rescored from `rows` against the corrected `gold` (unless
    the run's items already carry them: `applied`)."""
    corrected = {}
    for erratum in manifest().of_task(task.name, "metric"):
        corrected[erratum.id] = {
            key: metrics.get(variant) for key, variant in erratum.variants.items()
        }
    for erratum in data_errata(task, "dev", file_sha256, kinds=("label",)):
        if erratum.id in applied:
            continue
        fixed = apply_edits(gold, erratum.edits, erratum.id, present_only=True)
        rescored = score_predictions(task, list(fixed), list(rows), switches)
        corrected[erratum.id] = {m.key: rescored.get(m.key) for m in task.metrics}
    return corrected
