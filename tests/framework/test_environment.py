"""The two dependency lists agree, and the README's first commands are the ones that work."""

import re
import tomllib

import yaml

from kluebook.paths import ROOT


def pins_from_pyproject() -> dict[str, str]:
    """The dependencies and the dev extra (tests, lint, the browser test's driver)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    return dict(re.fullmatch(r"([\w.-]+)==(.+)", d).groups() for d in pins)


def pins_from_environment() -> dict[str, str]:
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in environment["dependencies"] if isinstance(d, dict))
    return dict(re.fullmatch(r"([\w.-]+)==(.+)", d).groups() for d in pip if "==" in d)


def test_pyproject_and_environment_pin_the_same_versions():
    assert pins_from_pyproject() == pins_from_environment()


def test_every_dependency_is_pinned_and_python_is_311():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert all("==" in d for d in project["dependencies"])
    assert all("==" in d for d in project["optional-dependencies"]["dev"])
    assert "python=3.11" in yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    assert pins_from_pyproject()["jupyter-book"] == "1.0.4.post1"


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
