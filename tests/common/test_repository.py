"""The repository's address is set once (`repository.url` in _config.yml): `kluebook
set-repository` writes it into the files that cannot read the configuration (the notebooks'
Colab install cell, the READMEs), and a book whose copies disagree is refused before any run."""

import shutil

import nbformat
import pytest

from kluebook.common import repository
from kluebook.common.errors import KluebookError
from kluebook.common.paths import ROOT

FORK = "https://github.com/someone/kluebook-fork"


@pytest.fixture
def book_root(tmp_path):
    for name in ("_config.yml", *repository.READMES):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    for notebook in ROOT.glob(repository.NOTEBOOKS):
        shutil.copy(notebook, tmp_path / "notebooks" / notebook.name)
    return tmp_path


def test_the_checkout_spells_out_only_the_configured_address():
    assert repository.configured_url(ROOT).startswith("https://")
    # two READMEs, the eight task notebooks and the prompted one
    assert len(repository.spelling_files(ROOT)) == 2 + 8 + 1
    assert repository.disagreements(ROOT) == []


def test_set_repository_writes_the_address_everywhere_once(kluebook, book_root):
    result = kluebook(book_root, "set-repository", FORK + "/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == f"repository: {FORK} (12 files changed)"
    assert repository.configured_url(book_root) == FORK
    assert repository.disagreements(book_root) == []
    for notebook in sorted(book_root.glob(repository.NOTEBOOKS)):
        first = nbformat.read(notebook, as_version=4).cells[0].source
        assert first.splitlines()[-1].strip() == repository.install_line(FORK)
    readme = (book_root / "README.md").read_text(encoding="utf-8")
    assert f'pip install "kluebook @ git+{FORK}"' in readme
    again = kluebook(book_root, "set-repository", FORK)
    assert again.stdout.strip() == f"repository: {FORK} (0 files changed)"


def test_a_hand_edited_configuration_is_refused_naming_the_fix(book_root):
    config = book_root / "_config.yml"
    original = repository.configured_url(book_root)
    config.write_text(config.read_text(encoding="utf-8").replace(original, FORK))
    with pytest.raises(KluebookError) as refused:
        repository.check_agreement(book_root)
    message = str(refused.value)
    assert "notebooks/ynat.ipynb" in message and "README.md" in message
    assert message.endswith(f"run `kluebook set-repository {FORK}`")


def test_the_book_is_refused_before_any_run_while_an_address_disagrees(kluebook, book_root):
    notebook = book_root / "notebooks" / "nli.ipynb"
    text = notebook.read_text(encoding="utf-8")
    notebook.write_text(text.replace(repository.configured_url(book_root), FORK))
    result = kluebook(book_root, "book", "--tasks", "nli")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: notebooks/nli.ipynb installs kluebook from another address than _config.yml's "
        f"repository.url ({repository.configured_url(book_root)}): run `kluebook "
        f"set-repository {repository.configured_url(book_root)}`"
    ]
    assert not (book_root / "results").exists()  # nothing ran


@pytest.mark.parametrize("url", ["ftp://example.org/x", "github.com/a/b", "https://x y/z"])
def test_an_address_that_is_not_https_is_refused(kluebook, book_root, url):
    result = kluebook(book_root, "set-repository", url)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: repository URL {url!r} is not an https:// address")
    assert repository.configured_url(book_root) == repository.configured_url(ROOT)


def test_a_fork_address_leaves_the_runs_current(book_root):
    """The install cell does nothing where kluebook runs, so its address is not a run input."""
    from kluebook.recording.fingerprints import notebook_code

    before = {p.name: notebook_code(p) for p in book_root.glob(repository.NOTEBOOKS)}
    repository.set_url(book_root, FORK)
    after = {p.name: notebook_code(p) for p in book_root.glob(repository.NOTEBOOKS)}
    assert FORK in (book_root / "notebooks" / "ynat.ipynb").read_text(encoding="utf-8")
    assert after == before
