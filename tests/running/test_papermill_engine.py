"""The engine runs execute with writes the executed notebook when the run starts and when it
ends, not at every cell, and still keeps a notebook as far as it got when the kernel dies."""

from unittest import mock

import nbformat
import papermill
import pytest
from papermill.engines import write_ipynb

from kluebook.running import papermill_engine


def _notebook(folder, *sources):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    notebook.metadata.kernelspec = {"name": "python3", "display_name": "Python 3"}
    path = folder / "input.ipynb"
    nbformat.write(notebook, path)
    return path


def _execute(source, output, engine):
    papermill.execute_notebook(
        str(source), str(output), engine_name=engine, kernel_name="python3", progress_bar=False
    )


@pytest.mark.parametrize(("engine", "writes"), [(papermill_engine.NAME, 2), ("nbclient", 8)])
def test_the_notebook_is_written_at_the_start_and_the_end(tmp_path, engine, writes):
    source = _notebook(tmp_path, "1", "2", "3")
    with mock.patch("papermill.engines.write_ipynb", side_effect=write_ipynb) as written:
        _execute(source, tmp_path / "executed.ipynb", engine)
    assert written.call_count == writes  # papermill's own engine: 2 more for every cell


def test_a_dead_kernel_leaves_the_notebook_as_far_as_it_got(tmp_path):
    source = _notebook(tmp_path, "print('the first cell ran')", "import os; os._exit(1)", "2")
    executed = tmp_path / "executed.ipynb"
    with pytest.raises(Exception, match=r"(?i)kernel died"):
        _execute(source, executed, papermill_engine.NAME)
    first, *_ = nbformat.read(executed, as_version=4).cells
    assert first.outputs[0].text == "the first cell ran\n"
