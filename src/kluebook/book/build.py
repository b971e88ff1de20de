"""The Jupyter Book build, and scratch copies of the book's sources for tests and benchmarks."""

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from kluebook import __version__
from kluebook.book.templating import TEMPLATES
from kluebook.common import repository
from kluebook.common.errors import KluebookError
from kluebook.common.paths import CONFIGS, GENERATED, KLUE_DATA, RESULTS, ROOT, SUBMISSIONS
from kluebook.recording import code_closure
from kluebook.recording.code_closure import closure, notebook_imports
from kluebook.recording.fingerprints import package_data, task_imports
from kluebook.submissions.board import load_board
from kluebook.tasks import all_tasks, notebook_path

# What a book build reads besides the installed package (which holds the configs): the book's
# configuration, its pages, the citation file (the Cite page), the notebooks its launch
# buttons open and the submissions (with their derived records) its board shows.
SOURCES = ("_config.yml", "_toc.yml", "CITATION.cff", "book", "notebooks", "submissions")
# What the site is built from (the toc, the config, and book/ with the executed notebooks and
# the generated pages); the build is skipped when none of it changed since the last one.
SITE_INPUTS = ("_config.yml", "_toc.yml", "CITATION.cff", "book")
STAMP = ".kluebook-inputs"
# The Sphinx extensions of the package that _config.yml loads (the launch buttons; the banner,
# scripts and accessibility).
SITE_EXTENSIONS = ["kluebook.book.sphinx_hooks", "kluebook.book.sphinx_extension"]


def site_inputs_digest(root: Path = ROOT) -> str:
    """SHA-256 over the names and contents of every file the site is built from."""
    digest = hashlib.sha256(f"{__version__} {sys.executable}".encode())
    for name in SITE_INPUTS:
        path = root / name
        files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
        _digest_files(digest, files, root)
    _digest_modules(digest, SITE_EXTENSIONS)  # the code the build runs, and its templates
    _digest_files(digest, _templates(), TEMPLATES)
    return digest.hexdigest()


# The entry points of the code that writes the generated pages: `write_generated_pages` and
# the report it calls.
PAGE_ENTRY = ("kluebook.book.build", "kluebook.book.report")


def _templates() -> list[Path]:
    """The HTML templates of the pages and of the extensions (package data, not modules)."""
    return sorted(TEMPLATES.rglob("*.html"))


def _digest_files(digest, files, base: Path) -> None:
    for file in sorted(files):
        digest.update(str(file.relative_to(base)).encode() + b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())


def _digest_modules(digest, entry: list[str]) -> None:
    """The names and bytes of the import closure of the modules `entry` names, and of its
    packages' data files (the errata manifest, which the errata page prints, among them)."""
    modules = list(closure(entry).items())
    for name, path in [*modules, *package_data(modules, versioned=frozenset())]:
        digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())


def generated_pages_digest() -> str:
    """SHA-256 over what the generated pages are made from: every file under results/ (records,
    predictions, executed notebooks), the configs, the toc, the task folders and notebooks, and
    the code that writes the pages or that a record's staleness is judged against: the import
    closure of `PAGE_ENTRY`, of the task folders' code and of the notebooks' imports, and the
    pages' HTML templates."""
    digest = hashlib.sha256(__version__.encode())
    _digest_files(digest, (p for p in RESULTS.rglob("*") if p.is_file()), ROOT)
    _digest_files(digest, _submission_files(), ROOT)
    _digest_files(digest, (p for p in CONFIGS.rglob("*") if p.is_file()), CONFIGS)
    toc = ROOT / "_toc.yml"  # the generated toc is made from it, in a book root
    _digest_files(digest, [toc] if toc.is_file() else [], ROOT)
    _digest_files(digest, _templates(), TEMPLATES)
    entry = list(PAGE_ENTRY)
    for task in all_tasks().values():
        digest.update(task.name.encode() + b"\0")
        _digest_files(digest, _task_files(task.folder), task.folder)
        entry += task_imports(task)
        if notebook_path(task).is_file():
            text = notebook_path(task).read_text(encoding="utf-8")
            digest.update(hashlib.sha256(text.encode()).digest())
            entry += notebook_imports(text)
    _digest_modules(digest, entry)
    return digest.hexdigest()


def _submission_files() -> list[Path]:
    """The files under submissions/: the submissions and their derived records."""
    return [p for p in SUBMISSIONS.rglob("*") if p.is_file()]


def _task_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def files_touched_digest() -> str:
    """SHA-256 over the name, size and modification time of every file the generated pages can
    be made from (a superset of `generated_pages_digest`'s: the whole package's code and HTML
    templates, results/, the toc, the task folders and notebooks): while it is unchanged, so
    are the pages' inputs, and nothing need be read."""
    files = [p for p in code_closure.PACKAGE_DIR.rglob("*.py") if "__pycache__" not in p.parts]
    files += [p for p in RESULTS.rglob("*") if p.is_file()] + [ROOT / "_toc.yml"]
    files += _submission_files()
    files += [p for p in CONFIGS.rglob("*") if p.is_file()] + _templates()
    for task in all_tasks().values():
        files += [*_task_files(task.folder), notebook_path(task)]
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(set(files)):
        stat = path.stat() if path.is_file() else None
        shown = f"{stat.st_size} {stat.st_mtime_ns}" if stat else "absent"
        digest.update(f"{path}\0{shown}\0".encode())
    return digest.hexdigest()


def write_generated_pages(force: bool = False) -> bool:
    """The results table, figure and status page from the records, and the registry pages;
    skipped, returning False, when nothing they are made from changed since they were written
    (no file touched since, `files_touched_digest`, or none changed, `generated_pages_digest`).
    The board of submissions is loaded first, so a submission whose inputs changed is
    rescored (and its record rewritten) before the digests read the records."""
    board = load_board(SUBMISSIONS, KLUE_DATA)
    stamp = GENERATED / ".kluebook-inputs"
    touched = files_touched_digest()
    stamped = stamp.read_text(encoding="utf-8").split() if stamp.is_file() else []
    if not force and stamped[1:] == [touched]:
        return False
    digest = generated_pages_digest()
    if not force and stamped[:1] == [digest]:
        stamp.write_text(f"{digest}\n{touched}\n", encoding="utf-8")
        return False
    from kluebook.book.report import (
        write_generated,  # lazy: the pages' code loads only to write them
    )

    stamp.unlink(missing_ok=True)
    write_generated(board=board)
    stamp.write_text(f"{digest}\n{touched}\n", encoding="utf-8")
    return True


def require_book_root(root: Path = ROOT) -> None:
    """Raise unless `root` holds the book's sources (its _config.yml)."""
    if not (root / "_config.yml").is_file():
        raise KluebookError(
            f"{root} is not a book root (no _config.yml): the site is built from a checkout "
            "of the kluebook repository (git clone it, then `make book`)"
        )


def check_book_root(root: Path = ROOT) -> None:
    """Raise unless `root` holds the book's sources, every copy of the repository's address
    agreeing with its configuration."""
    require_book_root(root)
    repository.check_agreement(root)


def build(path_output: Path, force: bool = False) -> bool:
    """`jupyter-book build` of the book root, every warning an error (all reported at once).

    The table of contents is the one `kluebook report` generates from _toc.yml (each task's
    runs under its page), or _toc.yml itself before any report. Skipped, returning False, when
    the site in `path_output` was built from the same inputs (`site_inputs_digest`) and `force`
    is not set; a build that fails leaves no stamp. The caller has checked the book root
    (`check_book_root`).
    """
    html = path_output / "_build" / "html"
    stamp = path_output / "_build" / STAMP
    digest = site_inputs_digest()
    up_to_date = (html / "index.html").is_file() and stamp.is_file()
    if not force and up_to_date and stamp.read_text(encoding="utf-8").strip() == digest:
        return False
    stamp.unlink(missing_ok=True)
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
