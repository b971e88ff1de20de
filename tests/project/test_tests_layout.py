"""The tests mirror the package, so that a module's tests are found where the module lives.

The rule, for every folder under tests/ that holds a Python file:
- tests/<name>/ is a subpackage of kluebook (src/kluebook/<name>/: tests/cli/ for the command
  line) or one of the groups that test no single subpackage: end_to_end/ (whole runs and builds,
  the site in a browser), project/ (the repository: import contracts, environment, wheel, this
  layout), benchmarks/ (the scripts in benchmarks/: tests/benchmarks/test_<script>.py runs or
  loads benchmarks/<script>.py) and support/ (the helpers tests of several folders share).
- A folder below tests/<subpackage>/ is a folder of that subpackage: a task's own tests are in
  tests/tasks/<task>/, beside src/kluebook/tasks/<task>/ (every task of the package has one); the
  tests of what every task shares (its interface, its contract) stay in tests/tasks/. The groups
  are flat.
- Shared helpers have one place: a Python file that is not a test module, a conftest.py or an
  __init__.py is in tests/support/, and tests/support/ holds no test; a folder's conftest.py
  keeps fixtures for that folder's own tests (it may register one from tests/support/).
A test that runs a benchmark script only as a tool (the accessibility audit of a built site) is
with what it checks, not in benchmarks/.
"""

from pathlib import Path

import kluebook

TESTS = Path(__file__).resolve().parents[1]
PACKAGE = Path(kluebook.__file__).resolve().parent
GROUPS = {"end_to_end", "project", "benchmarks", "support"}


def python_folders() -> set[Path]:
    """Every folder under tests/ holding a Python file, relative to tests/ (tests/ itself too)."""
    return {path.parent.relative_to(TESTS) for path in TESTS.rglob("*.py")}


def is_helper(path: Path) -> bool:
    return not path.name.startswith("test_") and path.name not in {"conftest.py", "__init__.py"}


def test_every_test_folder_is_a_subpackage_a_task_or_a_group():
    misplaced = []
    for folder in sorted(python_folders()):
        if folder == Path("."):
            continue
        top, *below = folder.parts
        if top in GROUPS:
            if below:
                misplaced.append(f"tests/{folder.as_posix()}: the {top}/ group is flat")
        elif not (PACKAGE / top / "__init__.py").is_file():
            misplaced.append(f"tests/{folder.as_posix()}: kluebook has no subpackage {top}")
        elif not (PACKAGE / folder).is_dir():
            misplaced.append(
                f"tests/{folder.as_posix()}: src/kluebook/{folder.as_posix()} is no folder"
            )
    assert misplaced == []
    tasks = {Path("tasks") / yaml.parent.name for yaml in PACKAGE.glob("tasks/*/task.yaml")}
    assert tasks and tasks <= python_folders(), tasks - python_folders()


def test_shared_helpers_live_in_support_and_support_holds_no_test():
    helpers = [
        path.relative_to(TESTS).as_posix() for path in TESTS.rglob("*.py") if is_helper(path)
    ]
    assert helpers and all(helper.startswith("support/") for helper in helpers), helpers
    assert list((TESTS / "support").glob("test_*.py")) == []


def test_each_benchmark_test_is_named_after_its_script():
    scripts = {path.stem for path in (TESTS.parent / "benchmarks").glob("*.py")}
    tests = {path.stem.removeprefix("test_") for path in (TESTS / "benchmarks").glob("test_*.py")}
    assert tests and tests <= scripts, tests - scripts
