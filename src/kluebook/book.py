"""The Jupyter Book build, and scratch copies of the book's sources for tests and benchmarks."""

import shutil
import subprocess
import sys
from pathlib import Path

from kluebook.errors import KluebookError
from kluebook.paths import ROOT

# What a book build reads besides the installed package (which holds the configs): the book's
# configuration, its pages and the notebooks its launch buttons open.
SOURCES = ("_config.yml", "_toc.yml", "book", "notebooks")
REPOSITORY = "https://github.com/kluebook/kluebook"


def build(path_output: Path) -> None:
    """`jupyter-book build` of the book root, every warning an error (all reported at once)."""
    if not (ROOT / "_config.yml").is_file():
        raise KluebookError(
            f"{ROOT} is not a book root (no _config.yml): the site is built from a checkout "
            f"of {REPOSITORY} (git clone it, then `make book`)"
        )
    command = [
        str(Path(sys.executable).parent / "jupyter-book"),
        "build",
        str(ROOT),
        "--path-output",
        str(path_output),
        "-W",
        "-n",
        "--keep-going",
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
