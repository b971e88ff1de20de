"""The Jupyter Book build, and scratch copies of the book's sources for tests and benchmarks."""

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from kluebook import __version__, repository
from kluebook.errors import KluebookError
from kluebook.paths import CONFIGS, GENERATED, RESULTS, ROOT

# What a book build reads besides the installed package (which holds the configs): the book's
# configuration, its pages, the citation file (the Cite page) and the notebooks its launch
# buttons open.
SOURCES = ("_config.yml", "_toc.yml", "CITATION.cff", "book", "notebooks")
# What the site is built from (the toc, the config, and book/ with the executed notebooks and
# the generated pages); the build is skipped when none of it changed since the last one.
SITE_INPUTS = ("_config.yml", "_toc.yml", "CITATION.cff", "book")
STAMP = ".kluebook-inputs"


def site_inputs_digest(root: Path = ROOT) -> str:
    """SHA-256 over the names and contents of every file the site is built from."""
    digest = hashlib.sha256(f"{__version__} {sys.executable}".encode())
    for name in SITE_INPUTS:
        path = root / name
        files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
        _digest_files(digest, files, root)
    return digest.hexdigest()


# The code that writes the generated pages, besides the records, configs and task folders.
PAGE_CODE = (
    "report.py",
    "aggregation.py",
    "pooling.py",
    "klue_marks.py",
    "klue_table.py",
    "links.py",
    "results_page.py",
    "downloads.py",
    "status_page.py",
    "records.py",
    "run_pages.py",
    "runner.py",
    "pages.py",
    "result_figures.py",
    "model_index.py",
    "myst.py",
    "plots.py",
    "recipes.py",
    "checkpoints.py",
    "book.py",
)


def _digest_files(digest, files, base: Path) -> None:
    for file in sorted(files):
        digest.update(str(file.relative_to(base)).encode() + b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())


def generated_pages_digest() -> str:
    """SHA-256 over what the generated pages are made from: the run records, the configs, the
    task folders' registry entries and cards, and the code that writes the pages."""
    from kluebook.tasks import all_tasks

    digest = hashlib.sha256(__version__.encode())
    _digest_files(digest, RESULTS.rglob("*.json") if RESULTS.is_dir() else [], ROOT)
    _digest_files(digest, (p for p in CONFIGS.rglob("*") if p.is_file()), CONFIGS)
    toc = ROOT / "_toc.yml"  # the generated toc is made from it, in a book root
    _digest_files(digest, [toc] if toc.is_file() else [], ROOT)
    for task in all_tasks().values():
        digest.update(task.name.encode())
        _digest_files(digest, [task.folder / "task.yaml", task.card_path], task.folder)
    package = Path(__file__).parent
    _digest_files(digest, [package / name for name in PAGE_CODE], package)
    return digest.hexdigest()


def write_generated_pages(force: bool = False) -> bool:
    """The results table, figure and status page from the records, and the registry pages;
    skipped, returning False, when nothing they are made from changed since they were written."""
    stamp = GENERATED / ".kluebook-inputs"
    digest = generated_pages_digest()
    if not force and stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == digest:
        return False
    from kluebook.report import write_generated

    stamp.unlink(missing_ok=True)
    write_generated()
    stamp.write_text(digest + "\n", encoding="utf-8")
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
