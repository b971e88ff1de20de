"""The Jupyter Book build, and scratch copies of the book's sources for tests and benchmarks."""

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from kluebook import __version__
from kluebook.errors import KluebookError
from kluebook.paths import ROOT

# What a book build reads besides the installed package: configuration, pages, notebooks.
SOURCES = ("_config.yml", "_toc.yml", "book", "configs", "notebooks")
# What the site is built from (the toc, the config, and book/ with the executed notebooks and
# the generated pages); the build is skipped when none of it changed since the last one.
SITE_INPUTS = ("_config.yml", "_toc.yml", "book")
STAMP = ".kluebook-inputs"


def site_inputs_digest(root: Path = ROOT) -> str:
    """SHA-256 over the names and contents of every file the site is built from."""
    digest = hashlib.sha256(f"{__version__} {sys.executable}".encode())
    for name in SITE_INPUTS:
        path = root / name
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            digest.update(str(file.relative_to(root)).encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


def build(path_output: Path, force: bool = False) -> bool:
    """`jupyter-book build` of the book root, every warning an error (all reported at once).

    Skipped, returning False, when the site in `path_output` was built from the same inputs
    (`site_inputs_digest`) and `force` is not set; a build that fails leaves no stamp.
    """
    html = path_output / "_build" / "html"
    stamp = path_output / "_build" / STAMP
    digest = site_inputs_digest()
    up_to_date = (html / "index.html").is_file() and stamp.is_file()
    if not force and up_to_date and stamp.read_text(encoding="utf-8").strip() == digest:
        return False
    stamp.unlink(missing_ok=True)
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
    stamp.write_text(digest + "\n", encoding="utf-8")
    return True


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
