"""The package's import contracts (pyproject.toml, `[tool.importlinter]`): its layers, each
importing only those below it, and no import circle. `lint-imports` checks them; the test also
shows that it fails on an import that breaks them."""

import shutil
import subprocess
import sys
from pathlib import Path

import grimp

from kluebook.common.paths import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(source: Path, config: Path) -> subprocess.CompletedProcess:
    """`lint-imports` on the package under `source` (a src folder) with a configuration."""
    env = {"PATH": str(LINT_IMPORTS.parent), "PYTHONPATH": str(source)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", str(config)],
        capture_output=True,
        text=True,
        env=env,
        cwd=source,
    )


def test_the_package_keeps_its_import_contracts():
    done = lint_imports(ROOT / "src", ROOT / "pyproject.toml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert " kept, 0 broken." in done.stdout


def with_imports(tmp_path: Path, **lines: str) -> Path:
    """A copy of the package where each named module (`recording__records` for
    kluebook/recording/records.py) also runs its line; the copy's src folder."""
    shutil.copytree(ROOT / "src" / "kluebook", tmp_path / "kluebook")
    for module, line in lines.items():
        path = tmp_path / "kluebook" / (module.replace("__", "/") + ".py")
        path.write_text(path.read_text(encoding="utf-8") + f"{line}  # noqa\n", encoding="utf-8")
    return tmp_path


def test_an_import_up_the_layers_breaks_them(tmp_path):
    source = with_imports(
        tmp_path, recording__records="from kluebook.book.report import write_generated"
    )
    done = lint_imports(source, ROOT / "pyproject.toml")
    assert done.returncode == 1
    assert "kluebook.recording.records -> kluebook.book.report" in done.stdout  # with its chain


def test_an_import_up_a_packages_order_breaks_it(tmp_path):
    # The circle the results layer once had: aggregation -> uncertainty -> compare -> aggregation.
    source = with_imports(tmp_path, results__compare="from kluebook.results.aggregation import Row")
    done = lint_imports(source, ROOT / "pyproject.toml")
    assert done.returncode == 1
    layers = "results: the sensitivity to the prompt over rows and items over intervals"
    assert layers in done.stdout
    assert "BROKEN" in done.stdout
    assert "kluebook.results.compare -> kluebook.results.aggregation" in done.stdout


def test_a_circle_between_two_modules_breaks_them(tmp_path):
    # Two modules of one package importing each other: the circle contract names the package.
    source = with_imports(
        tmp_path,
        notebook__analysis="from kluebook.notebook.procedure import training_procedure",
        notebook__procedure="from kluebook.notebook.analysis import token_table",
    )
    done = lint_imports(source, ROOT / "pyproject.toml")
    assert done.returncode == 1
    assert "No cycles are allowed in kluebook.notebook." in done.stdout


def test_an_import_up_the_layers_for_annotations_only_breaks_them_too(tmp_path):
    # The types a lower layer names are below it (a task: kluebook.task_types), so the contracts
    # count the imports under `if TYPE_CHECKING:` like any other.
    line = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kluebook.tasks import Task"
    )
    done = lint_imports(with_imports(tmp_path, data__loading=line), ROOT / "pyproject.toml")
    assert done.returncode == 1
    assert "kluebook.data.loading -> kluebook.tasks" in done.stdout


def test_no_module_circle_even_through_annotation_only_imports():
    """No import, those for annotations only included, closes a circle of modules."""
    graph = grimp.build_graph("kluebook", exclude_type_checking_imports=False)
    circles = [
        (module, imported)
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if graph.chain_exists(imported, module)
    ]
    assert not circles, circles
