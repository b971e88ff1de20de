"""The dependency scheme: pyproject.toml takes ranges, constraints.txt the exact versions the book
is built and tested with, environment.yml (Binder) repeats the runtime pins; the three agree.
And the README's first commands are the ones that work."""

import re
import tomllib

import pytest
import yaml
from packaging.requirements import Requirement

from kluebook.common.paths import ROOT

BOOK_TOOLS = ("jupyter-book", "sphinx", "jupytext")
# The extras `make` installs, each pinned in constraints.txt.
EXTRAS = ("book", "dev", "dask", "prompted")


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def requirements(group: str = "runtime") -> list[Requirement]:
    found = project()
    entries = found["dependencies"] if group == "runtime" else found["optional-dependencies"][group]
    return [Requirement(entry) for entry in entries]


def exact_pins(lines) -> dict[str, str]:
    pins = {}
    for line in lines:
        match = re.fullmatch(r"([\w.-]+)==([\w.+-]+)", line.split("#")[0].strip())
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def constraints() -> dict[str, str]:
    return exact_pins((ROOT / "constraints.txt").read_text().splitlines())


def environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def test_the_package_takes_ranges_and_python_311_to_313():
    assert project()["requires-python"] == ">=3.11,<3.14"
    for requirement in [r for group in ("runtime", *EXTRAS) for r in requirements(group)]:
        assert not any(s.operator in ("==", "===") for s in requirement.specifier), requirement


def test_book_tools_are_an_extra_not_a_runtime_dependency():
    runtime = [r.name for r in requirements()]
    assert not [name for name in runtime if name.startswith(BOOK_TOOLS)]
    book = {r.name: r for r in requirements("book")}
    assert {"jupyter-book", "sphinx-exercise", "jupytext", "sphinxcontrib-bibtex"} <= book.keys()
    assert str(book["jupyter-book"].specifier) == "<2,>=1.0.4.post1"


def test_constraints_pin_every_dependency_inside_its_range():
    pins = constraints()
    for group in ("runtime", *EXTRAS):
        for requirement in requirements(group):
            name = requirement.name.lower()
            assert name in pins, f"{name} has no exact version in constraints.txt"
            assert requirement.specifier.contains(pins[name], prereleases=True), (
                f"constraints.txt pins {name}=={pins[name]}, outside {requirement}"
            )
    assert pins["torch"] == "2.13.0" and pins["jupyter-book"] == "1.0.4.post1"


def test_binder_environment_repeats_the_runtime_pins():
    dependencies = environment()["dependencies"]
    assert "python=3.11" in dependencies
    pip = next(d["pip"] for d in dependencies if isinstance(d, dict))
    runtime = {r.name.lower() for r in requirements()}
    assert exact_pins(pip) == {k: v for k, v in constraints().items() if k in runtime}
    # repo2docker builds environment.yml before the repository is copied in: the package itself
    # is installed by postBuild, with the same constraints.
    assert not any(line.startswith("-e") for line in pip)
    assert "-c constraints.txt -e ." in (ROOT / "postBuild").read_text()


def test_make_installs_the_constraints_with_the_book_and_dev_extras():
    makefile = (ROOT / "Makefile").read_text()
    assert f'-c constraints.txt -e ".[{",".join(EXTRAS)}]"' in makefile
    assert "python3.13 python3.12 python3.11" in makefile


def test_readme_opens_with_the_book_and_test_commands():
    first_block = (ROOT / "README.md").read_text().split("```")[1]
    assert "make book" in first_block and "make test" in first_block
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_notebooks_are_stored_without_outputs():
    import nbformat

    for path in (ROOT / "notebooks").glob("*.ipynb"):
        notebook = nbformat.read(path, as_version=4)
        assert not any(c.get("outputs") for c in notebook.cells if c.cell_type == "code"), path
        assert sum("parameters" in c.metadata.get("tags", []) for c in notebook.cells) == 1, path


def test_git_ignores_no_file_of_the_package():
    # A fresh clone holds only what git keeps: an ignored __init__.py breaks the installed wheel.
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    files = [str(p.relative_to(ROOT)) for p in (ROOT / "src").rglob("*") if p.is_file()]
    files = [f for f in files if "__pycache__" not in f and ".egg-info" not in f]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        input="\n".join(files),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.stdout.split() == [], "git ignores these files of the package"
