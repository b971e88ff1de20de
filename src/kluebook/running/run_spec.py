"""One run of a matrix (`RunSpec`, a run of any method: its method's `RunSettings` model, which
names its files and gives its notebook parameters), read back from its record (`spec_of`),
what it is made from today (`spec_inputs`) and what is sent to where it executes
(`run_request`)."""

from typing import NamedTuple

from kluebook.methods.interface import RunSettings
from kluebook.methods.registry import method_named
from kluebook.recording import fingerprints, provenance, records
from kluebook.running.run_matrix import default_data
from kluebook.running.worker import RunRequest
from kluebook.tasks import get_task

# A run of the matrix, whichever its method (`FineTunedRun`, `PromptedRun`...).
RunSpec = RunSettings


def spec_of(record: records.RunRecord) -> RunSpec:
    """The run a record was made by, its model named by id: to name its files and render its
    page without its data on this machine."""
    method = method_named(record.method)
    return method.settings(
        task=get_task(record.task),
        model=record.model,
        seed=record.seed,
        profile=record.profile,
        data_source=record.data_source,
        data_dir=str(record.parameters.get("data_dir") or ""),
        extra=record.overrides,
        default_data=default_data(record.profile),
        model_revision=record.parameters.get("model_revision", ""),
        data_revision=record.parameters.get("data_revision", ""),
        **method.recorded_fields(record.parameters),
        recorded_config="" if record.is_default_config else record.config,
    )


def spec_inputs(spec: RunSpec, code: str | None = None) -> fingerprints.Inputs:
    """What a run is made from today (see `fingerprints.Inputs`)."""
    code = fingerprints.notebook_code(spec.source_notebook) if code is None else code
    checksum = spec.checksum
    parameters = provenance.portable_parameters(spec.parameters())
    return fingerprints.inputs(spec.task, code, parameters, checksum, spec.method)


class PreparedRun(NamedTuple):
    """A run ready to send: its request, and the inputs its record will carry."""

    request: RunRequest
    inputs: fingerprints.Inputs


def run_request(spec: RunSpec, log_output: bool = False) -> PreparedRun:
    """What is sent to where the run executes, and the inputs its record will carry."""
    text = spec.source_notebook.read_text(encoding="utf-8")
    code = fingerprints.cells_code(text)
    request = RunRequest(
        task=spec.task.name,
        name=spec.name,
        parameters=spec.parameters(),
        notebook=text,
        code_hash=fingerprints.run_code_hash(spec.task, spec.method),
        method=spec.method,
        data_checksum=spec.checksum,
        log_output=log_output,
    )
    return PreparedRun(request, spec_inputs(spec, code))
