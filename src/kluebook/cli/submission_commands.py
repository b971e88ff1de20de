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
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Submission folders (`submissions/<slug>`); with --changed-against, the "
            "folders the changes touch are checked too.",
            show_default=False,
        ),
    ] = None,
    data_dir: DataDirOption = None,
    changed_against: Annotated[
        str | None,
        typer.Option(
            help="A git ref (a pull request's base, e.g. origin/main): check the changes since "
            "it as a pull request to the board: only files of one `submissions/<slug>/`, a new "
            "slug (or one in --owned), a model name no other submission has."
        ),
    ] = None,
    owned: Annotated[
        list[str] | None,
        typer.Option(
            help="With --changed-against: an existing submission's slug the pull request's "
            "author owns and may change (repeat for several)."
        ),
    ] = None,
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

    With --changed-against REF, the changes since REF are checked as one pull request to the
    board (the workflow of a board run by pull requests passes its base): a change outside
    `submissions/<slug>/` (the derived records included), a second submission, an existing
    slug not in --owned, a slug that differs from an existing one only by `-` against `_`, or
    the model name of another submission is refused, each in one line.

    Prints one line per problem on stderr and exits with status 1 if there is any; else one
    line per predictions file checked.
    """
    from kluebook.common.paths import KLUE_DATA  # lazy: CLI start-up
    from kluebook.submissions.check import check_submission  # lazy: CLI start-up

    folders = list(paths or [])
    failed = False
    if changed_against is not None:
        lines, changed = _pull_request(changed_against, frozenset(owned or []))
        for line in lines:
            typer.echo(f"pull request: {line}", err=True)
        failed = bool(lines)
        folders += [f for f in changed if f.resolve() not in {p.resolve() for p in folders}]
        if not folders and not failed:
            typer.echo(f"pull request: no submission changed since {changed_against}")
    elif not folders:
        typer.echo("give submission folders, or --changed-against a git ref", err=True)
        raise typer.Exit(2)
    for path in folders:
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


def _pull_request(ref: str, owned: frozenset[str]) -> tuple[list[str], list[Path]]:
    """The refusals of the changes since `ref` as one pull request, and the submission folders
    they touch (those still there)."""
    from kluebook.common.errors import KluebookError  # lazy: CLI start-up
    from kluebook.submissions import ownership  # lazy: CLI start-up
    from kluebook.submissions.schema import METADATA, read_submission

    try:
        repo = ownership.repository_root(Path.cwd())
        paths = ownership.changed_paths(repo, ref)
        existing = ownership.existing_models(repo, ref)
    except KluebookError as error:
        return [str(error)], []
    folder = repo / ownership.FOLDER
    models = {}
    for path in paths:  # the changed submissions' model names, as the pull request has them
        parts = Path(path).parts
        metadata = folder / parts[1] / METADATA if len(parts) == 3 else None
        if parts[0] == ownership.FOLDER and metadata and metadata.is_file():
            submission, _ = read_submission(metadata)
            models[parts[1]] = submission.model if submission else ""
    found = ownership.pull_request(paths, existing, ref, owned, models)
    return found.problems, [folder / slug for slug in found.slugs if (folder / slug).is_dir()]


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

    Exits with status 1, one line per differing cell on stderr, if any differs. A task derived
    against a reduced copy of its dev file, where the official file is now in the data folder,
    is compared on its numbers, and a note says so.
    """
    from kluebook.common.paths import KLUE_DATA  # lazy: CLI start-up
    from kluebook.submissions.derived import verify as verify_record

    failed = False
    for path in paths:
        lines, notes = verify_record(path, data_dir or KLUE_DATA)
        for line in lines:
            typer.echo(f"differs: {line}", err=True)
        failed = failed or bool(lines)
        for note in notes:
            typer.echo(f"note: {note}")
        if not lines:
            typer.echo(f"{path.name}: every number of its record derived anew and equal")
    if failed:
        raise typer.Exit(1)


@submissions_app.command("import")
def import_command(
    sources: Annotated[
        list[Path],
        typer.Argument(
            help="What a tool wrote: a kluebook run's record (`results/<profile>/<task>/"
            "<stem>.json`, its `<stem>.predictions.jsonl` beside it), lm-eval's "
            "`samples_<task>_<time>.jsonl` (or the folder `--output_path` filled, its "
            "`results_<time>.json` beside), or an Inspect eval log (`.eval` or `.json`)."
        ),
    ],
    to: Annotated[
        Path, typer.Option(help="The submission folder to write, `submissions/<slug>` (new).")
    ],
    task: Annotated[
        list[str] | None,
        typer.Option(
            help="TOOL_TASK=TASK: the KLUE task a tool's task is, where its name does not say "
            "(a name whose words hold one task's name does, as `klue_<task>`); repeatable."
        ),
    ] = None,
    answer: Annotated[
        list[str] | None,
        typer.Option(
            help="TOOL_ANSWER=ANSWER: what one of the tool's answers stands for, in the task's "
            "words or a label's name; repeatable."
        ),
    ] = None,
    model: Annotated[str | None, typer.Option(help="The model's name.")] = None,
    link: Annotated[
        str | None, typer.Option(help="Where the model is described (http(s)).")
    ] = None,
    parameters: Annotated[int | None, typer.Option(help="The model's parameter count.")] = None,
    method: Annotated[str | None, typer.Option(help="fine-tuned, prompted or other.")] = None,
    training_data: Annotated[
        str | None, typer.Option(help="What the model was trained (or prompted with) on.")
    ] = None,
    dev_data_used: Annotated[
        bool | None,
        typer.Option(
            "--dev-data-used/--no-dev-data-used",
            help="Whether any KLUE dev data served for training or model selection.",
        ),
    ] = None,
    tool: Annotated[str | None, typer.Option(help="The program that made the predictions.")] = None,
    tool_version: Annotated[str | None, typer.Option(help="Its version or commit.")] = None,
    license_: Annotated[
        str | None, typer.Option("--license", help="The license of the predictions files.")
    ] = None,
    date: Annotated[
        str | None, typer.Option(help="When the predictions were made (YYYY-MM-DD).")
    ] = None,
    contact: Annotated[str | None, typer.Option(help="Whom to ask (optional).")] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Make a submission folder from a tool's output, mapping its items to KLUE guids.

    Each item is given its guid (the one the tool kept, else the dev item whose text fields are
    among its texts), and each answer is read as the task's answer in its own words or as a
    label's name (after `--answer`); the items that cannot be mapped and the answers outside the
    task's are left out and reported (how many, the first five). Items are matched against the
    official v1.1 dev file in the data folder, or the generated smoke data where it has none.

    The metadata comes from the source where it says it (model, tool, version, date; a kluebook
    run's method; lm-eval's parameter count) and from the options otherwise: a field neither
    gives is an error naming its option, never guessed. Then the folder is checked as
    `kluebook submissions check` checks it: exits with status 1 if the check fails.
    """
    import datetime  # lazy: CLI start-up

    from kluebook.common.errors import KluebookError  # lazy: CLI start-up
    from kluebook.common.paths import KLUE_DATA  # lazy: CLI start-up
    from kluebook.submissions.importing import import_submission  # lazy: CLI start-up

    def pairs(values: list[str] | None, option: str) -> dict[str, str]:
        found = {}
        for value in values or []:
            key, sep, meant = value.partition("=")
            if not sep or not key.strip() or not meant.strip():
                raise KluebookError(f"{option} {value!r}: expected NAME=VALUE")
            found[key.strip()] = meant.strip()
        return found

    try:
        day = datetime.date.fromisoformat(date) if date else None
    except ValueError:
        raise KluebookError(f"--date {date!r}: expected YYYY-MM-DD") from None
    given = {
        "model": model,
        "link": link,
        "parameters": parameters,
        "method": method,
        "training_data": training_data,
        "dev_data_used": dev_data_used,
        "tool": tool,
        "tool_version": tool_version,
        "predictions_license": license_,
        "date": day,
        "contact": contact,
    }
    report = import_submission(
        sources,
        to,
        {key: value for key, value in given.items() if value is not None},
        data_dir or KLUE_DATA,
        pairs(task, "--task"),
        pairs(answer, "--answer"),
    )
    for imported in report.tasks:
        typer.echo(
            f"{imported.task} (from {imported.source_task!r}): {len(imported.lines)} of "
            f"{imported.items} items imported ({imported.by_guid} by their guid, "
            f"{imported.by_text} by their text), matched against {imported.gold}"
        )
        for why, tally in imported.left_out.items():
            typer.echo(f"{imported.task}: {tally.line(why)}")
        if imported.dropped_fields:
            typer.echo(
                f"{imported.task}: fields not written (not of the predictions format): "
                + ", ".join(sorted(imported.dropped_fields))
            )
    typer.echo(f"wrote {to}")
    for line in report.check.all_problems:
        typer.echo(f"{report.check.slug}: {line}", err=True)
    if report.check.all_problems:
        typer.echo(f"{to.name}: does not pass `kluebook submissions check`", err=True)
        raise typer.Exit(1)
    typer.echo(f"{to.name}: passes `kluebook submissions check`")
