"""Run records keep no path of the machine that wrote them."""

import json
import sys

from kluebook import records
from kluebook.paths import ROOT


def test_a_failed_runs_error_and_traceback_name_no_folder_of_this_machine():
    def fail():
        json.loads("{")  # raises inside the interpreter's own library folder

    try:
        fail()
    except ValueError as error:
        line, traceback = records.describe_error(error)
    assert line.startswith("JSONDecodeError: ")
    assert 'File "tests/framework/test_records.py"' in traceback  # relative to the book root
    assert "<python>/" in traceback  # the interpreter's library, without its folder
    for folder in (str(ROOT), sys.prefix, sys.base_prefix):
        assert folder not in traceback
