"""Run records: typed when read, written in the layout records have always had, and with no
path of the machine that wrote them."""

import base64
import json
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest

from kluebook.common.errors import KluebookError
from kluebook.common.paths import PACKAGE, ROOT
from kluebook.recording import records, redaction
from kluebook.training import checkpoints

# Records as the code before the typed model wrote them (commit 900e714): a paper run that
# succeeded on a GPU, with intervals, and a failure of the same run.
WRITTEN_BEFORE = Path(__file__).parent / "records"


def test_a_failed_runs_error_and_traceback_name_no_folder_of_this_machine():
    def fail():
        json.loads("{")  # raises inside the interpreter's own library folder

    try:
        fail()
    except ValueError as error:
        line, traceback = redaction.describe_error(error, {"model": "klue/roberta-base"})
    assert line.startswith("JSONDecodeError: ")
    assert 'File "tests/recording/test_records.py"' in traceback  # relative to the book root
    assert "<python>/" in traceback  # the interpreter's library, without its folder
    for folder in (str(ROOT), sys.prefix, sys.base_prefix):
        assert folder not in traceback


def test_a_failed_runs_error_names_no_key_server_credentials_nor_folder_whatever_raised(
    monkeypatch, tmp_path
):
    key, password = "sk-sentinel-key-0123", "pa/ss-sentinel"
    monkeypatch.setenv("KLUEBOOK_OPENAI_API_KEY", key)
    folder = tmp_path / "models" / "my-lm"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    url = f"http://kluebook:{quote(password, safe='')}@10.1.2.3:8123/v1"
    basic = base64.b64encode(f"kluebook:{password}".encode()).decode()
    scratch = Path(tempfile.gettempdir()) / "kluebook-run-x1y2"
    said = (
        f"the server at {url}/ (10.1.2.3:8123, host 10.1.2.3) refused 401: Incorrect API key "
        f"provided: {key}; Basic {basic}; {password}; no logprobs for {folder} in "
        f"{scratch}/input.ipynb, {PACKAGE}/worker.py; /var/tmp/x; \x1b[32m{PACKAGE}/data.py"
    )
    try:
        raise KluebookError(said)
    except KluebookError as error:
        line, traceback = redaction.describe_error(error, {"model": str(folder), "base_url": url})
    assert line == (
        "KluebookError: the server at <server>/ (<server>, host <server>) refused 401: "
        "Incorrect API key provided: <api key>; Basic <credentials>; <credentials>; no logprobs "
        f"for {checkpoints.model_id(str(folder))} in <tmp>/kluebook-run-x1y2/input.ipynb, "
        "<kluebook>/worker.py; /var/tmp/x; \x1b[32m<kluebook>/data.py"
    )
    assert line in traceback
    for private in (key, password, "10.1.2.3", str(tmp_path), str(scratch), str(PACKAGE)):
        assert private not in traceback


@pytest.mark.parametrize("name", ["succeeded", "failed"])
def test_a_record_written_before_round_trips_byte_for_byte(tmp_path, name):
    old = WRITTEN_BEFORE / f"{name}.json"
    records.write_record(tmp_path / old.name, records.parse_record(old))
    assert (tmp_path / old.name).read_bytes() == old.read_bytes()


def test_a_record_in_the_flat_layout_is_read_as_the_model_with_its_outcome_typed(tmp_path):
    found, unreadable = records.read_records(WRITTEN_BEFORE)
    assert unreadable == []
    failed, good = sorted(found, key=lambda r: r.status)
    assert isinstance(good, records.RunRecord) and failed.outcome is None
    assert failed.error == "OutOfMemoryError: CUDA out of memory"
    outcome = good.outcome
    assert outcome.metrics == {"macro_f1": 86.12, "undefined_metric": None}
    assert outcome.intervals["macro_f1"] == records.Interval(low=85.5, high=86.8)
    assert outcome.bootstrap.unit == "headline"
    assert (outcome.best_checkpoint.step, outcome.last_checkpoint.step) == (800, 2000)
    assert outcome.best_checkpoint.model_extra == {"macro_f1": 86.12}
    assert outcome.counts == {"train": 45678, "dev": 9107}
    assert outcome.devices == [records.Gpu(cuda_visible_device="3", name="NVIDIA H100 80GB HBM3")]
    assert outcome.recipe["learning_rate"] == 5e-05 and outcome.deviations
    assert good.config == "learning_rate=5e-05" and not good.is_default_config
    assert good.dev_set == ("3" * 64, None)
    assert outcome.errata is None  # written before the errata manifest: read, none claimed
    assert records.read_record(WRITTEN_BEFORE / "succeeded.json") == good
    data = json.loads((WRITTEN_BEFORE / "succeeded.json").read_text())
    del data["config"], data["overrides"]  # a run of its profile's recipe may leave them out
    assert records.RunRecord.model_validate(data).is_default_config


def test_a_wrongly_typed_outcome_field_is_named_as_the_file_holds_it(tmp_path):
    data = json.loads((WRITTEN_BEFORE / "succeeded.json").read_text())
    data["counts"]["dev"] = "many"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(KluebookError, match=r"bad.json: not a run record of schema 2: counts.dev"):
        records.parse_record(path)
    assert records.read_record(path) is None
