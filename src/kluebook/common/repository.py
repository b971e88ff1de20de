"""The repository's address, set once as `repository.url` in _config.yml.

The book's pages, buttons and cite entry read it from the Sphinx configuration. Two kinds of
file cannot read it and spell it out: each task notebook's first cell (Colab opens the notebook
from GitHub, before kluebook is installed, and installs it from there) and the READMEs' install
lines (GitHub renders them as they are). `kluebook set-repository URL` writes the address into
all of them at once, and `kluebook book` refuses to build while one of them disagrees with the
configuration.
"""

import re
from pathlib import Path

import yaml

from kluebook.common.errors import KluebookError
from kluebook.common.json_files import write_text_if_changed

CONFIG = "_config.yml"
# The files that spell the address out, besides the configuration.
READMES = ("README.md", "notebooks/README.md")
NOTEBOOKS = "notebooks/*.ipynb"
URL = re.compile(r"https://[A-Za-z0-9.-]+(?::\d+)?(?:/[\w.~-]+)+")
CONFIG_LINE = re.compile(r"^(repository:\n(?:[ \t]+.*\n|\s*#.*\n)*?[ \t]+url:[ \t]*)(\S+)", re.M)
INSTALL_FROM = re.compile(r"kluebook @ git\+(" + URL.pattern + ")")


def configured_url(root: Path) -> str:
    """`repository.url` of the book root's _config.yml, without a trailing slash."""
    config = yaml.safe_load((root / CONFIG).read_text(encoding="utf-8")) or {}
    url = str((config.get("repository") or {}).get("url") or "").rstrip("/")
    if not url:
        raise KluebookError(f"{CONFIG} has no repository.url: set it to the book's repository")
    return url


def install_line(url: str) -> str:
    """The pip line of a notebook's first cell: kluebook from the repository at `url`."""
    return f'%pip install --quiet "kluebook @ git+{url}"'


def without_install_address(text: str) -> str:
    """`text` with every address kluebook is installed from replaced by one placeholder."""
    return INSTALL_FROM.sub("kluebook @ git+<repository>", text)


def spelling_files(root: Path) -> list[Path]:
    """The files that spell the address out: the READMEs and the task notebooks."""
    readmes = [root / name for name in READMES if (root / name).is_file()]
    return readmes + sorted(root.glob(NOTEBOOKS))


def disagreements(root: Path) -> list[str]:
    """The files (relative to `root`) that install kluebook from another address than the
    configuration's."""
    url = configured_url(root)
    return [
        str(path.relative_to(root))
        for path in spelling_files(root)
        if set(INSTALL_FROM.findall(path.read_text(encoding="utf-8"))) - {url}
    ]


def check_agreement(root: Path) -> None:
    """Raise, naming the files and the fix, when a file spells out another address."""
    files = disagreements(root)
    if files:
        url = configured_url(root)
        verb = "installs" if len(files) == 1 else "install"
        raise KluebookError(
            f"{', '.join(files)} {verb} kluebook from another address than {CONFIG}'s "
            f"repository.url ({url}): run `kluebook set-repository {url}`"
        )


def set_url(root: Path, url: str) -> list[Path]:
    """Write `url` into the configuration and every file that spells the address out; return
    the files changed."""
    url = url.rstrip("/")
    if not URL.fullmatch(url):
        raise KluebookError(f"repository URL {url!r} is not an https:// address of a repository")
    config = root / CONFIG
    text, lines = CONFIG_LINE.subn(lambda m: m.group(1) + url, config.read_text("utf-8"), count=1)
    if not lines:
        raise KluebookError(f"{CONFIG} has no `url:` line under `repository:`")
    changed = [config] if write_text_if_changed(config, text) else []
    for path in spelling_files(root):
        spelled = INSTALL_FROM.sub(f"kluebook @ git+{url}", path.read_text(encoding="utf-8"))
        if write_text_if_changed(path, spelled):
            changed.append(path)
    return changed
