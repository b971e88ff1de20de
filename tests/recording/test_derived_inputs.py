"""What makes a run stale and the pages out of date is computed from the code: the import
closure of the notebook's and the report's entry points, the task folder, the notebooks and the
records; never a list kept by hand."""

import shutil
import textwrap

import nbformat
import pytest

from kluebook.book import build
from kluebook.recording import code_closure, fingerprints
from kluebook.tasks import get_task, notebook_path


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A copy of the kluebook package that the import closure reads instead of the installed
    one, so a test can add and edit its modules."""
    copy = tmp_path / "kluebook"
    shutil.copytree(
        code_closure.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__", "configs")
    )
    monkeypatch.setattr(code_closure, "PACKAGE_DIR", copy)
    return copy


def _run_module_names(task) -> list[str]:
    return [name for name, _ in fingerprints.run_modules(task)]


def test_the_run_code_is_what_the_notebook_and_task_folder_import_not_the_report():
    names = _run_module_names(get_task("ynat"))
    for module in (
        "notebook.steps",
        "training.fine_tuning",
        "data.loading",
        "common.plots",
        "scoring.predictions",
        "recording.records",
        "tasks",
    ):
        assert f"kluebook.{module}" in names  # imported by the notebook, directly or not
    for module in ("book", "book.report", "cli", "book.pages", "running", "book.klue_table"):
        assert not any(name.startswith(f"kluebook.{module}") for name in names), module
    assert not any(name.startswith("kluebook.tasks.ynat") for name in names)  # task code
    assert "kluebook.data.klue_tsv" in _run_module_names(get_task("dp"))  # imported by its folder


def test_the_prompted_steps_are_code_of_prompted_runs_only():
    nli = get_task("nli")
    fine_tuned = [name for name, _ in fingerprints.run_modules(nli)]
    prompted = [name for name, _ in fingerprints.run_modules(nli, "prompted")]
    assert "kluebook.notebook.prompted_steps" in prompted
    assert "kluebook.notebook.prompted_steps" not in fine_tuned  # an edit there stales no such run
    assert "kluebook.notebook.steps" in fine_tuned and "kluebook.notebook.steps" in prompted


def test_a_module_a_notebook_imports_reaches_the_run_fingerprint(package, tmp_path):
    task = get_task("ynat")
    (package / "helper.py").write_text("FACTOR = 1\n")
    base = fingerprints.run_code_hash(task)
    assert "kluebook.helper" not in _run_module_names(task)
    (package / "helper.py").write_text("FACTOR = 2\n")
    assert fingerprints.run_code_hash(task) == base  # imported by nothing the run executes
    plots = package / "common" / "plots.py"  # imported by the notebook
    plots.write_text(plots.read_text() + "\nfrom kluebook import helper  # noqa: E402\n")
    assert "kluebook.helper" in _run_module_names(task)
    with_import = fingerprints.run_code_hash(task)
    assert with_import != base
    (package / "helper.py").write_text("FACTOR = 3\n")
    assert fingerprints.run_code_hash(task) != with_import
    (package / "helper.py").write_text('"""A docstring."""\n\nFACTOR = 3  # a comment\n')
    changed = fingerprints.run_code_hash(task)
    (package / "helper.py").write_text("FACTOR = 3\n")
    assert fingerprints.run_code_hash(task) == changed  # comments and docstrings do not count


def test_a_module_a_notebook_cell_imports_reaches_the_run_fingerprint(package, tmp_path):
    folder = tmp_path / "ynat"
    shutil.copytree(get_task("ynat").folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    task = get_task("ynat").model_copy(update={"folder": folder})
    notebook = nbformat.read(notebook_path(get_task("ynat")), as_version=4)
    (package / "extra.py").write_text("VALUE = 1\n")
    nbformat.write(notebook, folder / "notebook.ipynb")  # the task's own notebook comes first
    assert "kluebook.extra" not in _run_module_names(task)
    cell = nbformat.v4.new_code_cell("%matplotlib inline\nfrom kluebook import extra")
    notebook.cells.append(cell)
    nbformat.write(notebook, folder / "notebook.ipynb")
    assert "kluebook.extra" in _run_module_names(task)
    base = fingerprints.shared_code_hash(task)
    (package / "extra.py").write_text("VALUE = 2\n")
    assert fingerprints.shared_code_hash(task) != base


def test_a_new_module_the_report_imports_reaches_the_pages(package):
    (package / "page_helper.py").write_text("WIDTH = 1\n")
    base = build.generated_pages_digest()
    (package / "page_helper.py").write_text("WIDTH = 2\n")
    assert build.generated_pages_digest() == base  # nothing that writes the pages imports it
    report = package / "book" / "report.py"
    report.write_text(report.read_text() + "\nfrom kluebook import page_helper  # noqa: E402\n")
    imported = build.generated_pages_digest()
    assert imported != base
    (package / "page_helper.py").write_text("WIDTH = 3\n")
    assert build.generated_pages_digest() != imported


def test_a_module_only_the_run_imports_reaches_the_pages_too(package):
    """A page says whether its run is stale, which the run's code decides."""
    base = build.generated_pages_digest()
    training = package / "training" / "fine_tuning.py"
    training.write_text(training.read_text() + "\nEXTRA_STEPS = 1\n")
    assert build.generated_pages_digest() != base


# In a scratch book: store a YNAT run, write the pages, then edit a code cell of the book's
# notebooks/ynat.ipynb and write the pages again (what `kluebook book --no-run` does).
NOTEBOOK_EDIT = """
import time, nbformat
from kluebook.running import run_plan, run_spec, run_store
from kluebook.book.build import write_generated_pages
from kluebook.common.paths import ROOT
from kluebook.running.worker import RunProducts

spec = run_plan.plan("smoke", tasks=["ynat"], seeds=[1])[0]
done = RunProducts(started=time.time(), host="here", finished=time.time() + 5)
done.outcome = {"model_revision": "m", "recipe": {}, "metrics": {"macro_f1": 77.0},
                "data_checksum": spec.checksum}
done.predictions = b""
done.executed = nbformat.writes(
    nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# YNAT")])
).encode()
assert run_store.store(spec, run_spec.spec_inputs(spec), done) == "succeeded"
print("first", write_generated_pages(), run_store.run_state(spec))
print("again", write_generated_pages())
path = ROOT / "notebooks" / "ynat.ipynb"
path.write_text(path.read_text())  # touched, not changed: read again, nothing rendered
print("touched", write_generated_pages())
notebook = nbformat.read(path, as_version=4)
cell = next(c for c in notebook.cells if c.cell_type == "code" and "import" in c.source)
cell.source += "\\nprint('one more line')"
nbformat.write(notebook, path)
print("edited", write_generated_pages(), run_store.run_state(spec))
metadata = ROOT / "submissions" / "tfidf-baseline" / "submission.yaml"
metadata.write_text(metadata.read_text() + "contact: https://example.org/board\\n")
print("submission", write_generated_pages())
"""


def test_editing_a_notebooks_code_cell_re_renders_the_pages_marking_its_runs_stale(
    kluebook, scratch_book
):
    root = scratch_book
    done = kluebook.python(root, textwrap.dedent(NOTEBOOK_EDIT))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-5:] == [
        "first True current",
        "again False",
        "touched False",
        "edited True stale (notebook changed)",
        "submission True",  # the board is among the pages' inputs
    ]
    page = nbformat.read(root / "book/runs/ynat/smoke-kluebook--tiny-roberta-seed1.ipynb", 4)
    assert "Stale: its notebook changed since this run" in page.cells[0].source
    assert "stale: notebook changed" in (root / "book/_generated/results.md").read_text()
