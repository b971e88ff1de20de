"""The Jupyter Book build, and scratch copies of the book's sources for tests and benchmarks."""

import shutil
import subprocess
import sys
from pathlib import Path

from kluebook.errors import KluebookError
from kluebook.paths import GENERATED, ROOT

# What a book build reads besides the installed package: configuration, pages, notebooks.
SOURCES = ("_config.yml", "_toc.yml", "book", "configs", "notebooks")


def build(path_output: Path) -> None:
    """`jupyter-book build` of the book root, every warning an error (all reported at once).

    The table of contents is the one `kluebook report` generates from _toc.yml (each task's
    runs under its page), or _toc.yml itself before any report.
    """
    generated_toc = GENERATED / "_toc.yml"
    toc = ["--toc", str(generated_toc)] if generated_toc.is_file() else []
    command = [
        str(Path(sys.executable).parent / "jupyter-book"),
        "build",
        str(ROOT),
        "--path-output",
        str(path_output),
        "-W",
        "-n",
        "--keep-going",
        *toc,
    ]
    if subprocess.run(command, cwd=ROOT).returncode != 0:
        raise KluebookError("jupyter-book build failed (see the warnings above)")


def copy_sources(dest: Path) -> Path:
    """Copy the book's sources, without runs or generated pages, into `dest` (a new book root)."""
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, dest / name, ignore=shutil.ignore_patterns("runs", "_generated")
            )
        else:
            shutil.copy(source, dest / name)
    return dest
