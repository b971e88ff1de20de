"""The index of the run pages the report writes beside the generated pages: which run each page
shows (its task, profile and method), from the records, so that the Sphinx extensions never read
a run's identity from its page's address."""

import json

from conftest import valid_record

from kluebook.book.run_index import INDEX, PageRun, read_run_index, write_run_index
from kluebook.methods.fine_tuned import FINE_TUNED
from kluebook.methods.prompted import PROMPTED


def page(root, name: str) -> str:
    """An executed notebook under `root`, as the runner leaves it: its path in a record."""
    path = root / "book" / "runs" / "nli" / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}", encoding="utf-8")
    return path.relative_to(root).as_posix()


def test_each_run_page_is_indexed_with_its_runs_task_profile_and_method(tmp_path):
    # A page's name need not say what the run is: the record does.
    prompted = page(tmp_path, "a-page-named-anyhow")
    fine_tuned = page(tmp_path, "paper-prompted-seed1")  # a model named "prompted"
    records = [
        valid_record({"task": "nli", "notebook": fine_tuned, "profile": "paper"}),
        valid_record({"task": "nli", "notebook": prompted, "method": PROMPTED, "seed": 2}),
        valid_record({"task": "nli", "notebook": "book/runs/nli/not-there.ipynb"}),  # no page
        valid_record({"task": "nli", "status": "failed", "notebook": prompted}),  # no outcome
    ]
    out = tmp_path / INDEX.parent
    path = write_run_index(records, out, tmp_path)
    assert path == tmp_path / INDEX
    assert read_run_index(tmp_path) == {
        "book/runs/nli/a-page-named-anyhow": PageRun("nli", "smoke", PROMPTED),
        "book/runs/nli/paper-prompted-seed1": PageRun("nli", "paper", FINE_TUNED),
    }
    written = path.read_bytes()
    write_run_index(list(reversed(records)), out, tmp_path)  # the same index, the same bytes
    assert path.read_bytes() == written
    assert list(json.loads(written)) == sorted(json.loads(written))


def test_a_book_without_a_report_has_an_empty_index(tmp_path):
    assert read_run_index(tmp_path) == {}
