"""The `kluebook` command line: the app, its commands in the order `--help` lists them (each from
the module of its concern: `run_commands`, `book_commands`, `score_commands`) and its entry point,
which turns a user's error into one line."""

import sys
from pathlib import Path
from typing import Annotated

import typer

from kluebook import __version__
from kluebook.cli import book_commands, run_commands, score_commands, submission_commands
from kluebook.cli.options import Tasks, split_names
from kluebook.common.errors import KluebookError
from kluebook.tasks import all_tasks, notebook_path

app = typer.Typer(
    help="kluebook: the KLUE reports book. Run the notebooks, build the book, score predictions.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # docstring paragraphs reflow to the terminal width
)
data_app = typer.Typer(help="Get the official KLUE v1.1 files.", no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(submission_commands.submissions_app, name="submissions")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kluebook {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    pass


def list_tasks() -> None:
    """List the tasks, their official metrics and whether their notebook exists."""

    for task in all_tasks().values():
        state = "ready" if notebook_path(task).exists() else "no notebook yet"
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
    """Download the official KLUE v1.1 train/dev files, each checked against its git blob id at
    the pinned KLUE commit (and its SHA-256 where known) before it is used."""
    from kluebook.data.fetch import fetch  # lazy: CLI start-up
    from kluebook.tasks import get_task  # lazy: CLI start-up

    chosen = [get_task(t) for t in split_names(tasks)] if tasks else list(all_tasks().values())
    for path in fetch(chosen, dest, base_url):
        typer.echo(f"ok {path}")


app.command()(run_commands.run)
app.command()(run_commands.status)
app.command()(book_commands.report)
app.command()(book_commands.book)
app.command(help=score_commands.SCORE_HELP)(score_commands.score)
app.command("compare")(score_commands.compare_command)
app.command("tasks")(list_tasks)
app.command("set-repository")(book_commands.set_repository)


def main() -> None:
    """Entry point: user errors become one line on stderr and exit status 2."""
    try:
        app()
    except KluebookError as error:
        typer.echo(f"error: {error}", err=True)
        sys.exit(2)
