"""Each run option is defined once: the help of `kluebook run`'s options for a run's settings
is their field's description (`RunSettings`, `ServedBy`, `ServerOptions`), and their default
the field's default."""

import inspect

import click
import pytest
import typer

from kluebook.cli.app import app
from kluebook.methods.interface import RunSettings, ServedBy
from kluebook.prompting.server_options import ServerOptions

# `kluebook run`'s option → the field it sets.
OPTION_FIELDS = {
    "profile": (RunSettings, "profile"),
    "models": (RunSettings, "model"),
    "seeds": (RunSettings, "seed"),
    "data_source": (RunSettings, "data_source"),
    "data_dir": (RunSettings, "data_dir"),
    "model_revision": (RunSettings, "model_revision"),
    "data_revision": (RunSettings, "data_revision"),
    "settings": (RunSettings, "extra"),
    "base_url": (ServedBy, "base_url"),
    "request_timeout": (ServerOptions, "timeout"),
    "retries": (ServerOptions, "retries"),
    "concurrency": (ServerOptions, "concurrency"),
}


def run_command() -> click.Command:
    return typer.main.get_command(app).commands["run"]


@pytest.mark.parametrize("option", OPTION_FIELDS)
def test_a_run_option_s_help_is_its_field_s_description(option):
    model, name = OPTION_FIELDS[option]
    description = model.model_fields[name].description
    (parameter,) = [p for p in run_command().params if p.name == option]
    assert description and description.rstrip(".") in parameter.help


@pytest.mark.parametrize("option", ["profile", "model_revision", "data_revision"])
def test_a_run_option_s_default_is_its_field_s_default(option):
    from kluebook.cli.run_commands import run

    default = inspect.signature(run).parameters[option].default
    assert default == RunSettings.model_fields[option].default
    (parameter,) = [p for p in run_command().params if p.name == option]
    assert parameter.default == default
