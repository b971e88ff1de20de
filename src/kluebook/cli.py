"""The `kluebook` command line: run notebooks, report, build the book, score predictions."""

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from kluebook.errors import KluebookError
from kluebook.paths import ROOT

app = typer.Typer(
    help="kluebook: the KLUE reports book. Run the notebooks, build the book, score predictions.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(help="Get the official KLUE v1.1 files.", no_args_is_help=True)
app.add_typer(data_app, name="data")


def _split(value: str | None) -> list[str] | None:
    return [item.strip() for item in value.split(",") if item.strip()] if value else None


def _parse_settings(settings: list[str]) -> dict:
    """`name=value` pairs; values are read as JSON when they parse (numbers, null), else text."""
    parsed = {}
    for setting in settings:
        name, sep, raw = setting.partition("=")
        if not sep or not name:
            raise KluebookError(f"--set expects name=value, got {setting!r}")
        try:
            parsed[name] = json.loads(raw)
        except json.JSONDecodeError:
            parsed[name] = raw
    return parsed


Profile = Annotated[
    str,
    typer.Option(
        help="smoke: offline pipeline check (default); paper: official recipe, real data."
    ),
]
Tasks = Annotated[
    str | None,
    typer.Option(
        help="Comma-separated tasks, e.g. ynat,nli (default: every task with a notebook)."
    ),
]
Models = Annotated[
    str | None,
    typer.Option(help="Comma-separated model ids or paths (default: the profile's run matrix)."),
]
Seeds = Annotated[
    str | None, typer.Option(help="Comma-separated seeds, e.g. 1,2,3 (default: the run matrix's).")
]
DataSource = Annotated[
    str | None, typer.Option(help="generated | official | hub (default: the run matrix's).")
]
DataDir = Annotated[
    str | None,
    typer.Option(help="Folder laid out like KLUE's klue_benchmark/, for --data-source official."),
]
Settings = Annotated[
    list[str],
    typer.Option(
        "--set", help="Notebook parameter override name=value, e.g. learning_rate=3e-5; repeatable."
    ),
]
Force = Annotated[bool, typer.Option(help="Rerun runs whose record is up to date.")]
Quiet = Annotated[bool, typer.Option(help="Do not stream notebook output (training progress).")]


def _run(profile, tasks, models, seeds, data_source, data_dir, settings, force, quiet) -> bool:
    from kluebook import runner

    specs = runner.plan(
        profile,
        tasks=_split(tasks),
        models=_split(models),
        seeds=[int(s) for s in _split(seeds)] if seeds else None,
        data_source=data_source,
        data_dir=data_dir,
        extra=_parse_settings(settings),
    )
    runner.preflight(specs)
    summary = runner.run_all(specs, force=force, log_output=not quiet)
    typer.echo(
        f"{len(summary.succeeded)} succeeded, {len(summary.skipped)} skipped (up to date), "
        f"{len(summary.failed)} failed"
    )
    for spec in summary.failed:
        typer.echo(f"failed: {spec.task.name} {spec.name} (record: {spec.record_path})", err=True)
    return not summary.failed


@app.command()
def run(
    profile: Profile = "smoke",
    tasks: Tasks = None,
    models: Models = None,
    seeds: Seeds = None,
    data_source: DataSource = None,
    data_dir: DataDir = None,
    settings: Settings = [],  # noqa: B006  (typer reads the default; it is never mutated)
    force: Force = False,
    quiet: Quiet = False,
) -> None:
    """Execute the task notebooks for every (task, model, seed) of a run matrix.

    Each run writes an executed notebook to book/runs/<task>/ and a JSON record to
    results/<profile>/<task>/. Runs whose record matches (same notebook, parameters, package
    and data) are skipped. A failing run is recorded as failed, the others go on, and the
    command exits 1 at the end.
    """
    if not _run(profile, tasks, models, seeds, data_source, data_dir, settings, force, quiet):
        raise typer.Exit(1)


@app.command()
def report() -> None:
    """Write the results table (book/_generated/results.md and .csv) from the run records."""
    from kluebook.report import write_report

    for path in write_report():
        typer.echo(f"wrote {path}")


@app.command()
def book(
    profile: Profile = "smoke",
    tasks: Tasks = None,
    models: Models = None,
    seeds: Seeds = None,
    data_source: DataSource = None,
    data_dir: DataDir = None,
    settings: Settings = [],  # noqa: B006
    force: Force = False,
    quiet: Quiet = False,
    path_output: Annotated[Path, typer.Option(help="Where _build/html goes.")] = ROOT,
) -> None:
    """Run the notebooks, write the results table, and build the site (warnings are errors).

    The site lands in <path-output>/_build/html. Notebooks are executed by the runner only;
    the build renders them as they are. Failed runs are reported, the book is built from the
    rest, and the command exits 1.
    """
    from kluebook.book import build
    from kluebook.report import write_report

    ok = _run(profile, tasks, models, seeds, data_source, data_dir, settings, force, quiet)
    write_report()
    build(path_output)
    typer.echo(f"book: {path_output / '_build' / 'html' / 'index.html'}")
    if not ok:
        raise typer.Exit(1)


@app.command()
def score(
    task: Annotated[str, typer.Argument(help="ynat, sts, nli, ner, re, dp, mrc or wos.")],
    pred: Annotated[
        Path, typer.Option(help="Predictions, JSON Lines, one object per example (SCORING.md).")
    ],
    gold: Annotated[
        Path | None,
        typer.Option(help="Official KLUE v1.1 dev file; omit for the hub validation split."),
    ] = None,
) -> None:
    """Print the official KLUE metrics of a predictions file as JSON (0-100 scale).

    Every gold example needs exactly one prediction, keyed by its guid; a missing, duplicate
    or unknown guid is an error. An undefined metric (e.g. Pearson r of constant predictions)
    is printed as null with the reason on stderr.
    """
    from kluebook.scoring import score_file, undefined_metrics
    from kluebook.tasks import get_task

    metrics = score_file(get_task(task), pred, gold)
    for key in undefined_metrics(metrics):
        typer.echo(
            f"{key} is undefined on these predictions (e.g. constant scores, or a class with "
            "no gold example): printed as null",
            err=True,
        )
        metrics[key] = None
    typer.echo(json.dumps(metrics, ensure_ascii=False))


@app.command("tasks")
def list_tasks() -> None:
    """List the tasks, their official metrics and whether their notebook exists."""
    from kluebook.tasks import all_tasks

    for task in all_tasks().values():
        state = "ready" if task.notebook_path.exists() else "no notebook yet"
        metrics = ", ".join(m.key for m in task.metrics)
        typer.echo(f"{task.name:5} {task.title:40} {metrics:32} {state}")


@data_app.command("fetch")
def data_fetch(
    tasks: Tasks = None,
    dest: Annotated[
        Path, typer.Option(help="Target folder (layout of KLUE's klue_benchmark/).")
    ] = Path("data/klue_benchmark"),
    base_url: Annotated[
        str | None,
        typer.Option(
            help="Mirror to download from (default: the KLUE repository at commit 3efd987)."
        ),
    ] = None,
) -> None:
    """Download the official KLUE v1.1 train/dev files and check their SHA-256."""
    from kluebook.fetch import fetch
    from kluebook.tasks import all_tasks, get_task

    chosen = [get_task(t) for t in _split(tasks)] if tasks else list(all_tasks().values())
    for path in fetch(chosen, dest, base_url):
        typer.echo(f"ok {path}")


def main() -> None:
    """Entry point: user errors become one line on stderr and exit status 2."""
    try:
        app()
    except KluebookError as error:
        typer.echo(f"error: {error}", err=True)
        sys.exit(2)
