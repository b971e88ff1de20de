"""--base-url travels as part of the server that answers the runs (`ServedBy`: its address and
how it is asked), one field of the plan's options, from the command line to every run."""

import dataclasses

import pytest

from kluebook.cli.choices import Selection, run_options
from kluebook.cli.options import served_by
from kluebook.common.errors import KluebookError
from kluebook.methods.interface import ServedBy
from kluebook.prompting.server_options import ServerOptions
from kluebook.running import run_plan


def test_the_plan_s_options_hold_the_server_as_one_field():
    names = {f.name for f in dataclasses.fields(run_plan.Options)}
    assert "server" in names and "base_url" not in names
    assert run_plan.Options().server is None  # no server: the model runs here


def test_the_server_a_command_names_is_the_one_each_run_is_answered_by():
    asked = ServerOptions(timeout=5.0, retries=0, concurrency=3)
    server = served_by("http://127.0.0.1:1/v1", asked)
    selection = Selection(tasks="ynat,nli", seeds="1")
    options = run_options(selection, method="prompted", server=server)
    assert options.server == ServedBy(base_url="http://127.0.0.1:1/v1", options=asked)
    specs = run_plan.planned(options)
    assert specs and all(spec.server == server for spec in specs)
    assert all(spec.parameters()["server_options"] == asked.model_dump() for spec in specs)
    assert served_by(None) is None and served_by("") is None


def test_a_bad_address_is_refused_before_it_is_a_server_and_a_fine_tuned_run_takes_none():
    with pytest.raises(KluebookError, match="--base-url must be an http:// or https:// URL"):
        served_by("127.0.0.1:8000/v1")
    fine_tuned = run_options(Selection(tasks="ynat"), server=served_by("http://127.0.0.1:1/v1"))
    with pytest.raises(KluebookError, match="--base-url is for prompted runs"):
        run_plan.planned(fine_tuned)
