"""The importers' fixtures are what the real tools write today: where lm-evaluation-harness or
Inspect AI can be run (a Python that imports it: this one, or the one named by
KLUEBOOK_LM_EVAL_PYTHON / KLUEBOOK_INSPECT_PYTHON), tests/support/make_import_fixtures.py runs
it afresh and the fresh logs import to the same predictions as the committed ones. CI has
neither tool: these skip there, and the importers are tested on the committed logs."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kluebook.submissions.importing import import_submission

ROOT = Path(__file__).parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "import"
SCRIPT = ROOT / "tests" / "support" / "make_import_fixtures.py"
GIVEN = {
    "model": "tiny",
    "link": "https://example.org/tiny",
    "parameters": 1,
    "training_data": "nothing: random weights",
    "dev_data_used": False,
    "predictions_license": "CC0-1.0",
}


def tool_python(module: str, variable: str) -> str:
    """A Python that imports `module`, or a skip saying how to name one."""
    named = os.environ.get(variable)
    if named:
        return named
    if importlib.util.find_spec(module) is not None:
        return sys.executable
    pytest.skip(f"{module} is not installed here; set {variable} to a Python that imports it")


def imported_lines(log: Path, data: Path, folder: Path) -> list[list[dict]]:
    return [task.lines for task in import_submission([log], folder, GIVEN, data).tasks]


@pytest.mark.parametrize(
    ("option", "module", "variable", "log"),
    [
        ("--lm-eval", "lm_eval", "KLUEBOOK_LM_EVAL_PYTHON", "lm_eval"),
        ("--inspect", "inspect_ai", "KLUEBOOK_INSPECT_PYTHON", "inspect/kluebook_nli.json"),
    ],
)
def test_a_fresh_run_of_the_tool_imports_as_the_committed_log(
    tmp_path, option, module, variable, log
):
    python = tool_python(module, variable)
    fresh = tmp_path / "fresh"
    subprocess.run(
        [sys.executable, str(SCRIPT), option, python, "--out", str(fresh)],
        check=True,
        cwd=ROOT,
        timeout=600,
        capture_output=True,
    )
    got = imported_lines(fresh / log, fresh / "data", tmp_path / "a")
    assert got == imported_lines(FIXTURES / log, FIXTURES / "data", tmp_path / "b")
    assert all(got)
    if log == "lm_eval":  # and the same greedy generations
        generated = [
            [line.split('"filtered_resps"')[1] for line in path.read_text().splitlines()]
            for root in (fresh, FIXTURES)
            for path in (root / "lm_eval_generate").glob("samples_*.jsonl")
        ]
        assert len(generated) == 2 and generated[0] == generated[1]
