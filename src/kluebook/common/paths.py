"""Where the project's folders are: the book root, the configs, notebooks, results and caches.

The package works from a checkout of the repository and when installed from a wheel:

- `CONFIGS` (run matrices, model registry, data checksums, published scores) is package data,
  in `kluebook/configs/`, wherever the package is.
- `ROOT`, the book root that holds `results/`, `book/runs/` and `.cache/`, is `KLUEBOOK_ROOT`
  when set, else the checkout the package runs from, else the current directory (an installed
  package: `kluebook run` writes under the folder it is started in).
- The task notebooks are the checkout's `notebooks/` (the launch buttons open them there); a
  wheel carries a copy of them in `kluebook/notebooks/`. A book root's own `notebooks/<task>.ipynb`
  comes first (see `kluebook.tasks.notebook_path`).

`KLUEBOOK_DATA_DIR` names the folder of real KLUE v1.1 files (the layout of KLUE's
`klue_benchmark/`) that real-data tests and benchmarks read; by default it is the folder that
`kluebook data fetch` fills.
"""

import functools
import hashlib
import os
import re
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # kluebook/, above this common/


def _checkout(folder: Path) -> Path | None:
    """`folder` if it is a checkout of the repository (the book's sources are there)."""
    markers = ("pyproject.toml", "_config.yml", "_toc.yml", "notebooks")
    return folder if all((folder / marker).exists() for marker in markers) else None


# The repository checkout the package is imported from (src/kluebook/..), or None if installed.
CHECKOUT = _checkout(PACKAGE.parents[1])
ROOT = Path(os.environ.get("KLUEBOOK_ROOT") or CHECKOUT or Path.cwd())
CONFIGS = PACKAGE / "configs"
NOTEBOOKS = ROOT / "notebooks"
PACKAGED_NOTEBOOKS = CHECKOUT / "notebooks" if CHECKOUT else PACKAGE / "notebooks"
# The one notebook of every prompted run, parameterised by task (`kluebook.prompting`).
PROMPTED_NOTEBOOK = PACKAGED_NOTEBOOKS / "prompted.ipynb"
RESULTS = ROOT / "results"
SUBMISSIONS = ROOT / "submissions"  # submitted predictions, beside their derived records
BOOK = ROOT / "book"
RUNS = BOOK / "runs"
GENERATED = BOOK / "_generated"
CACHE = Path(os.environ.get("KLUEBOOK_CACHE", ROOT / ".cache"))
KLUE_DATA = Path(os.environ.get("KLUEBOOK_DATA_DIR", ROOT / "data" / "klue_benchmark"))


def personal_folders() -> dict[str, str]:
    """This machine's home and temporary folders (where runs have their scratch folders), and
    what to show instead; read when asked, as HOME and TMPDIR say then."""
    return {str(Path.home()): "~", tempfile.gettempdir(): "<tmp>"}


def machine_paths() -> list[tuple[str, str]]:
    """(path, what to show instead), longest first: the interpreter's prefixes, the package's
    own folder, the book root, the KLUE data folder, and the home and temporary folders."""
    pairs = {  # the book's own folders win where one of them is the home or temporary folder
        **personal_folders(),
        sys.prefix: "<python>",
        sys.base_prefix: "<python>",
        str(PACKAGE): "<kluebook>",
        str(KLUE_DATA): "$KLUEBOOK_DATA_DIR",
        str(ROOT): ".",
    }
    return sorted(((p, s) for p, s in pairs.items() if len(p) > 1), key=lambda x: -len(x[0]))


# What may stand right before a path of this machine: the text's start, a character no path
# name holds, or a terminal colour code (a traceback's, raw or as a JSON string writes it).
PATH_START = r"(\A|[^\w.-]|(?:\x1b|\\u001b)\[[0-9;]*m)"


def scrub(text: str) -> str:
    """`text` without the paths of this machine (the book root becomes relative). A path is
    replaced where it is whole: not /rootfs for /root, nor /var/tmp for /tmp. Where several
    folders hold a path, the most specific one names it (the longest, matched on the text as
    given): a path under a home folder inside the temporary folder is ~/..., and what one
    folder's name became is never read again (~/tmp/x stays so)."""
    return _scrubber(tuple(machine_paths()))(text)


@functools.lru_cache(maxsize=8)
def _scrubber(paths: tuple[tuple[str, str], ...]):
    shown = dict(paths)
    # One pass over the text, the alternatives longest first: the first that matches is the
    # longest folder there.
    alternatives = "|".join(re.escape(path) for path, _ in paths)
    pattern = re.compile(PATH_START + f"({alternatives})(/|(?![\\w.-]))")

    def replace(found: re.Match) -> str:
        instead = shown[found.group(2)]
        if found.group(3):  # the path goes on: what it holds, relative to the book root
            instead = "" if instead == "." else instead + "/"
        return found.group(1) + instead

    return lambda text: pattern.sub(replace, text)


# The characters a name keeps in a file name and a page's address (`file_name`).
FILE_NAME_CHARACTERS = "A-Z a-z 0-9 . _ , = + -"
_OUTSIDE_FILE_NAME = re.compile(r"[^A-Za-z0-9._,=+-]+")
# How much of a name a file name keeps before the hash of the whole name.
FILE_NAME_KEPT = 60


def file_name(name: str, whole: str | None = None) -> str:
    """`name` as part of a file name and of a page's address: as it is when it holds only
    `FILE_NAME_CHARACTERS` and opens with a letter, digit or `_`; else each run of other
    characters as `_`, cut to `FILE_NAME_KEPT` characters, and `-` with the first 8 hex digits
    of the SHA-256 of `whole` (the full name it stands for; `name` by default), so two names
    never share a file. No name can shape a path, a tag or a link this way."""
    if (
        name
        and not _OUTSIDE_FILE_NAME.search(name)
        and not name.startswith((".", ",", "=", "+", "-"))
    ):
        return name
    digest = hashlib.sha256((whole if whole is not None else name).encode()).hexdigest()[:8]
    kept = _OUTSIDE_FILE_NAME.sub("_", name).strip("._,=+-")[:FILE_NAME_KEPT]
    return f"{kept}-{digest}" if kept else digest
