"""`kluebook score` and `kluebook compare`: the official metrics of a predictions file, and a
paired bootstrap of two predictions files or two configurations of the records."""

import json
from pathlib import Path
from typing import Annotated

import typer

from kluebook.cli.options import (
    TASK_NAMES,
    ScoringSwitches,
    parse_settings,
    registered_tasks,
)
from kluebook.common.errors import KluebookError

PREDICTION_LINES = "\n\n".join(
    f"{name}: `{task.predictions.line}`" for name, task in registered_tasks().items()
)

SCORE_HELP = (
    "Print the official KLUE metrics of a predictions file as JSON (0-100 scale).\n\n"
    "Every gold example needs exactly one prediction, keyed by its guid; a missing, duplicate "
    "or unknown guid is an error. An undefined metric (e.g. Pearson r of constant predictions) "
    "is printed as null with the reason on stderr. Each task's methods page in the book "
    "explains its format.\n\n"
    f"One line of the predictions file, per task:\n\n{PREDICTION_LINES}"
)


def score(
    task: Annotated[str, typer.Argument(help=f"One of {TASK_NAMES}.")],
    pred: Annotated[
        Path,
        typer.Option(
            help="Predictions: JSON Lines, one object per gold example (gzip if it ends in .gz)."
        ),
    ],
    gold: Annotated[
        Path | None,
        typer.Option(help="Official KLUE v1.1 dev file; omit for the hub validation split."),
    ] = None,
    settings: ScoringSwitches = None,
    corrected: Annotated[
        bool,
        typer.Option(
            help="Print the official metrics and, beside them, each erratum's corrected values: "
            "the metric errata's variants, and the label errata's rescoring against the "
            "corrected gold where --gold is the official v1.1 file they name; a misleadingly "
            "named metric's alternative statistic is printed apart, under 'alternative'."
        ),
    ] = False,
) -> None:
    """Score a predictions file (its help text is SCORE_HELP, built from the task registry)."""
    from kluebook.data.loading import file_sha256  # lazy: CLI start-up
    from kluebook.errata.corrections import corrected_values  # lazy: CLI start-up
    from kluebook.errata.manifest import manifest  # lazy: CLI start-up
    from kluebook.scoring.predictions import score_file, undefined_metrics  # lazy: CLI start-up
    from kluebook.tasks import get_task  # lazy: CLI start-up
    from kluebook.training.recipes import scoring_switches  # lazy: CLI start-up

    chosen = get_task(task)
    switches = scoring_switches(chosen, parse_settings(settings or []))
    scored = score_file(chosen, pred, gold, switches)
    metrics = scored.metrics
    for key in undefined_metrics(metrics):
        typer.echo(
            f"{key} is undefined on these predictions (e.g. constant scores, or a class with "
            "no gold example): printed as null",
            err=True,
        )
        metrics[key] = None
    if not corrected:
        typer.echo(json.dumps(metrics, ensure_ascii=False))
        return
    sha = file_sha256(gold) if gold else None
    values = corrected_values(chosen, scored.records, scored.rows, metrics, sha, switches=switches)
    corrects = {e.id: e.corrects for e in manifest().errata}
    both = {
        "official": metrics,
        "errata": manifest().version,
        # Bugs and data errors correct the official value; a naming problem's is an alternative.
        "corrected": {k: v for k, v in values.items() if corrects[k]},
        "alternative": {k: v for k, v in values.items() if not corrects[k]},
    }
    typer.echo(json.dumps(both, ensure_ascii=False))


def compare_command(
    a: Annotated[
        str, typer.Argument(help="A: a predictions file, a model id or a configuration label.")
    ],
    b: Annotated[str, typer.Argument(help="B: the same kind as A.")],
    task: Annotated[str, typer.Option(help=f"One of {TASK_NAMES}.")],
    gold: Annotated[
        Path | None,
        typer.Option(help="With predictions files: the official dev file; omit for the hub split."),
    ] = None,
    settings: ScoringSwitches = None,
) -> None:
    """Is A better than B on the task's dev set? A paired bootstrap per official metric.

    A and B are two predictions files (scored against `--gold` as `kluebook score` does, with
    its `--set` switches), or two configurations of the records under results/: a model id, or a
    configuration label of a sweep (`learning_rate=0.001`), each with all its seeds and scored
    with the switches its records hold. Both are resampled over the same
    dev-set units (and their seeds); each metric prints A, B, A - B, its 95% interval, a p-value
    and the verdict "A is better", "B is better" or "not distinguishable with this dev set";
    then, per seed pair, the 2x2 table of the items each side gets right.
    """
    from kluebook.recording.records import read_records  # lazy: CLI start-up
    from kluebook.results import agreement, compare  # lazy: CLI start-up
    from kluebook.tasks import get_task  # lazy: CLI start-up
    from kluebook.training.recipes import scoring_switches  # lazy: CLI start-up

    chosen = get_task(task)
    switches = scoring_switches(chosen, parse_settings(settings or []))
    files = [compare.is_predictions_file(name) for name in (a, b)]
    if all(files):
        for name in (a, b):
            if not Path(name).is_file():
                raise KluebookError(f"no predictions file {name}")
        gold_records = compare.load_gold(chosen, gold)
        sides = compare.from_files(chosen, gold_records, Path(a), Path(b), switches)
    elif any(files):
        raise KluebookError("give two predictions files or two configurations, not one of each")
    elif switches:
        raise KluebookError("--set is for two predictions files: a record keeps its own switches")
    else:
        gold_records, sides = compare.from_records(chosen, read_records().records, a, b)
    results = compare.compare(chosen, *sides)
    typer.echo(compare.table(chosen, gold_records, *sides, results))
    counts = agreement.side_agreements(chosen, gold_records, *sides)
    typer.echo(agreement.agreement_text(counts))
