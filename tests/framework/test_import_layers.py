"""The package's import contracts (pyproject.toml, `[tool.importlinter]`): its layers, each
importing only those below it, and no import circle. `lint-imports` checks them; the test also
shows that it fails on an import that breaks them."""

import shutil
import subprocess
import sys
from pathlib import Path

from kluebook.paths import ROOT

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


def with_import(tmp_path: Path, module: str, line: str) -> Path:
    """A copy of the package whose `module` also imports `line`; its src folder."""
    shutil.copytree(ROOT / "src" / "kluebook", tmp_path / "kluebook")
    path = tmp_path / "kluebook" / f"{module}.py"
    path.write_text(path.read_text(encoding="utf-8") + f"{line}  # noqa\n", encoding="utf-8")
    return tmp_path


def test_an_import_up_the_layers_breaks_them(tmp_path):
    source = with_import(tmp_path, "records", "from kluebook.report import write_generated")
    done = lint_imports(source, ROOT / "pyproject.toml")
    assert done.returncode == 1
    assert "kluebook.records -> kluebook.report" in done.stdout  # named, with its chain


def test_a_circle_inside_a_layer_breaks_them(tmp_path):
    # The circle the results layer had: aggregation -> uncertainty -> compare -> aggregation.
    source = with_import(tmp_path, "compare", "from kluebook.aggregation import Row")
    done = lint_imports(source, ROOT / "pyproject.toml")
    assert done.returncode == 1
    assert "No cycles are allowed in kluebook." in done.stdout  # siblings of one layer too
