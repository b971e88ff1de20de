"""`kluebook report`, `kluebook book` and `kluebook set-repository`: the generated pages, the
site, and the repository address the site and notebooks point to."""

import time
from pathlib import Path
from typing import Annotated

import typer

from kluebook.cli.choices import Execution, Selection, book_selections, run_options
from kluebook.cli.options import (
    DEFAULT_PROFILE,
    DataDir,
    DataSource,
    ExecutorName,
    Force,
    Jobs,
    Matrix,
    Models,
    Profile,
    Quiet,
    Resources,
    Scheduler,
    Seeds,
    Settings,
    Tasks,
    Threads,
)
from kluebook.cli.run_commands import execute_runs
from kluebook.common.paths import ROOT


def report() -> None:
    """Write the book's generated pages: from the run records, the KLUE table, a figure per task,
    results.csv, results.json and model-index snippets, and the status page; from the task
    registry and the records, the task table, prediction formats, methods pages, a landing page
    per task, and the table of contents that puts each task's runs under its page.

    Every submission under submissions/ is rescored by the official code where its official dev
    files are in the data folder (KLUEBOOK_DATA_DIR, else data/klue_benchmark) and one of its
    inputs changed (its record in submissions/_derived/ is then written); else its committed
    record is shown as it is, with the gold checksum and the day it was verified against. A
    submission that fails its check is named in one warning and left out."""
    from kluebook.book.report import write_generated  # lazy: CLI start-up

    for path in write_generated():
        typer.echo(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def book(
    profile: Profile = DEFAULT_PROFILE,
    tasks: Tasks = None,
    models: Models = None,
    seeds: Seeds = None,
    data_source: DataSource = None,
    data_dir: DataDir = None,
    settings: Settings = [],  # noqa: B006
    matrix: Matrix = None,
    force: Force = False,
    quiet: Quiet = False,
    executor: ExecutorName = "local",
    jobs: Jobs = 1,
    threads: Threads = None,
    scheduler: Scheduler = None,
    resources: Resources = None,
    no_run: Annotated[
        bool,
        typer.Option(
            help="Execute nothing: build the site from the records and executed notebooks that "
            "are there (committed paper runs, for instance)."
        ),
    ] = False,
    path_output: Annotated[Path, typer.Option(help="Where _build/html goes.")] = ROOT,
) -> None:
    """Run the notebooks, write the results table, and build the site (warnings are errors).

    Without --matrix, --models, --seeds, --data-source, --data-dir or --set, the smoke book
    also runs the prompted smoke runs of every task (the tiny causal LM, 0 and 5 shots) and
    one task's sweep over prompt templates and demonstration seeds (`prompt-sensitivity`), cut
    to the --tasks given (configs/book.yaml says which).

    The submissions are rescored where an input changed, as `kluebook report` says. The site
    lands in `<path-output>/_build/html`. Notebooks are executed by the runner only;
    the build renders them as they are. Failed runs are reported, the book is built from the
    rest, and the command exits 1.
    """
    from kluebook.book.build import (  # lazy: CLI start-up
        build,
        check_book_root,
        write_generated_pages,
    )

    check_book_root()  # before any run: a checkout, its repository address set everywhere
    selection = Selection.among(locals())
    execution = Execution(
        executor=executor, jobs=jobs, threads=threads, scheduler=scheduler, resources=resources
    )
    started = time.perf_counter()
    asked = book_selections(selection)  # the profile's matrix, and its book sweeps
    ok = no_run or execute_runs([run_options(s) for s in asked], force, quiet, execution)
    ran = time.perf_counter()
    write_generated_pages(force=force)
    written = time.perf_counter()
    built = build(path_output, force=force)
    state = "" if built else " (up to date: no page changed since the last build)"
    typer.echo(f"book: {path_output / '_build' / 'html' / 'index.html'}{state}")
    typer.echo(
        f"timings: runs {ran - started:.1f} s, pages {written - ran:.1f} s, "
        f"site {time.perf_counter() - written:.1f} s"
    )
    if not ok:
        raise typer.Exit(1)


def set_repository(
    url: Annotated[
        str, typer.Argument(help="The repository's address, e.g. https://github.com/me/kluebook.")
    ],
) -> None:
    """Point the book at the repository that hosts it: set `repository.url` in _config.yml and
    write the address into the notebooks' Colab install cell and the READMEs' install lines.

    The site's links, launch buttons and cite entry follow `repository.url`; the notebooks and
    READMEs cannot read it (Colab installs kluebook before there is a checkout), so this writes it
    into them, and `kluebook book` refuses to build while one of them disagrees.
    """
    from kluebook.book.build import require_book_root  # lazy: CLI start-up
    from kluebook.common.repository import set_url  # lazy: CLI start-up

    require_book_root()
    changed = set_url(ROOT, url)
    for path in changed:
        typer.echo(f"wrote {path.relative_to(ROOT)}")
    typer.echo(f"repository: {url.rstrip('/')} ({len(changed)} files changed)")
