"""`kluebook submissions`: check a submission (a model's dev predictions with its metadata)
before it is published."""

from pathlib import Path
from typing import Annotated

import typer

submissions_app = typer.Typer(
    help="Submissions: any model's KLUE dev predictions, checked and rescored by the official "
    "code. A submission is a folder `submissions/<slug>/` with `submission.yaml` and one "
    "predictions file per task, `<task>.jsonl` or `<task>.jsonl.gz`, in the formats of "
    "`kluebook score --help`.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        help="Folder of the official KLUE v1.1 files (the layout `kluebook data fetch` writes); "
        "default: KLUEBOOK_DATA_DIR, else data/klue_benchmark."
    ),
]


SubmissionFolders = Annotated[
    list[Path], typer.Argument(help="Submission folders (`submissions/<slug>`), one or more.")
]


@submissions_app.command("check")
def check(
    paths: SubmissionFolders,
    data_dir: DataDirOption = None,
) -> None:
    """Check submissions before they are published; nothing is written.

    Checks submission.yaml against the schema (model, link, parameters, method, training_data,
    dev_data_used, tool, tool_version, predictions_license, date; contact optional), then each
    predictions file against the official v1.1 dev file of its task, identified by its SHA-256:
    every dev guid exactly once (missing, duplicate and unknown guids are listed, five of
    each), then each task's checks of its values' types and ranges (labels in the label set,
    scores on their scale, heads within the sentence, no NaN or infinity). Predictions made for
    the Hugging Face klue/klue copy (class ids in its label order, guids from positions) are
    named as such. Files are size-limited and streamed; links, sub-folders and paths outside the
    folder are refused.

    Prints one line per problem on stderr and exits with status 1 if there is any; else one
    line per predictions file checked.
    """
    from kluebook.common.paths import KLUE_DATA  # lazy: CLI start-up
    from kluebook.submissions.check import check_submission  # lazy: CLI start-up

    failed = False
    for path in paths:
        report = check_submission(path, data_dir or KLUE_DATA)
        for line in report.all_problems:
            typer.echo(f"{report.slug}: {line}", err=True)
            failed = True
        if report.all_problems:
            continue
        for task in report.tasks:
            kind = "official" if task.gold.official else "reduced copy of the official"
            typer.echo(
                f"{report.slug}: ok {task.file}: {task.lines} predictions, each dev guid once, "
                f"against {task.gold.relative} ({kind} file, SHA-256 {task.gold.sha256[:16]}…)"
            )
    if failed:
        raise typer.Exit(1)


@submissions_app.command("score")
def score(
    paths: SubmissionFolders,
    data_dir: DataDirOption = None,
) -> None:
    """Rescore submissions by the official metric code into their derived records.

    Each submission must pass `kluebook submissions check`. Its record,
    `_derived/<slug>.json` beside the submission folders, holds per task the official metrics,
    their 95% bootstrap intervals and the errata's corrected values, with the SHA-256 of the
    predictions and gold files and the kluebook and errata versions they came from. A task
    whose inputs have not changed since the record was written is not rescored. Prints each
    task's official metrics.
    """
    from kluebook.common.paths import KLUE_DATA  # lazy: CLI start-up
    from kluebook.submissions.derived import derive, read_record, record_path, write_record
    from kluebook.tasks import get_task  # lazy: CLI start-up

    for path in paths:
        target = record_path(path)
        previous = read_record(target) if target.is_file() else None
        record, rescored = derive(path, data_dir or KLUE_DATA, previous)
        if record != previous:
            write_record(target, record)
        for task, scores in record.tasks.items():
            values = [(m.key, scores.official.get(m.key)) for m in get_task(task).metrics]
            numbers = ", ".join(
                f"{key} {value:.2f}" if value is not None else f"{key} undefined"
                for key, value in values
            )
            state = "rescored" if task in rescored else "unchanged"
            typer.echo(f"{record.slug}: {task} {numbers} ({state})")


@submissions_app.command("verify")
def verify(
    paths: SubmissionFolders,
    data_dir: DataDirOption = None,
) -> None:
    """Re-derive every number of each submission's record from its predictions and the official
    dev files, and fail naming each cell that differs (a number, a checksum, a version).

    Exits with status 1, one line per differing cell on stderr, if any differs.
    """
    from kluebook.common.paths import KLUE_DATA  # lazy: CLI start-up
    from kluebook.submissions.derived import verify as verify_record

    failed = False
    for path in paths:
        lines = verify_record(path, data_dir or KLUE_DATA)
        for line in lines:
            typer.echo(f"differs: {line}", err=True)
        failed = failed or bool(lines)
        if not lines:
            typer.echo(f"{path.name}: every number of its record derived anew and equal")
    if failed:
        raise typer.Exit(1)
