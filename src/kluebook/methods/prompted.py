"""The prompted method: a causal language model answers a task's prompts, zero- or few-shot,
untrained, in the prompted notebook (`kluebook.prompting`), here or on a server; each run asks
one of its task's prompt templates, an input of the run. The KLUE table shows its rows beside
the fine-tuned ones, never in their ranking (another protocol)."""

from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from kluebook.common.errors import KluebookError
from kluebook.common.paths import PROMPTED_NOTEBOOK
from kluebook.methods.interface import (
    RUNNER,
    UNCOUNTED,
    Method,
    NotebookParameters,
    RecordView,
    RunSettings,
    ServedBy,
)
from kluebook.tasks.prompt_items import DEFAULT_TEMPLATE, template_names, template_path

PROMPTED = "prompted"


class PromptedRun(RunSettings):
    """A prompted run: the shared fields and the server that answers it, if any."""

    method_name = PROMPTED
    server: ServedBy | None = None  # None: the model runs here, with transformers

    @classmethod
    def notebook_of(cls, task) -> Path:
        """The prompted notebook, for every task."""
        return PROMPTED_NOTEBOOK

    @property
    def served_by(self) -> ServedBy | None:
        return self.server

    def method_parameters(self) -> dict[str, Any]:
        """The prompted notebook's task, and where a server answers, its address, what it
        reported of the model and how it is asked."""
        if self.server is None:
            return {"task": self.task.name}
        return {"task": self.task.name, **self.server.model_dump(by_alias=True)}

    def config_parts(self) -> list[str]:
        """`prompted`, then `server` where a server answers (not its address, which may
        change): a prompted run never shares a fine-tuned or a local run's name."""
        return [PROMPTED, *(["server"] if self.server else [])]

    def with_served_model(self, identity: str) -> "PromptedRun":
        """This run with the identity the server reported for the model."""
        return self.but(server=self.server.model_copy(update={"served_model": identity}))


class PromptedParameters(NotebookParameters):
    """The prompted notebook's parameters cell: the shared parameters, the task it answers,
    the server (if one answers) and how it is asked, and the prompting."""

    # The task it answers: the notebook's default is an example (a run by hand), the model
    # names none (shared code names no task).
    task: str = Field(json_schema_extra=RUNNER)
    model: str = Field("kluebook/tiny-qwen3", json_schema_extra=RUNNER)
    base_url: str = Field("", json_schema_extra=RUNNER)  # --base-url
    served_model: str = Field("", json_schema_extra=UNCOUNTED)  # what the server reported
    server_options: dict = Field({}, json_schema_extra=UNCOUNTED)  # `ServerOptions`, as data
    shots: int = 0  # demonstrations before every query, drawn from train
    template: str = DEFAULT_TEMPLATE  # one of the task's prompt templates
    mode: str = ""  # rank or generate; "" for the template's
    output_dir: str = Field("outputs/prompted", json_schema_extra=RUNNER)


def template_digest(task, template: str = DEFAULT_TEMPLATE) -> str:
    """The SHA-256 of one of the task's prompt templates, as it is on disk: an input of the
    prompted runs made with it."""
    from kluebook.data.loading import file_sha256  # lazy: the command line's start-up

    return file_sha256(template_path(task.folder, template))


def template_of(parameters: dict) -> str:
    """The template a prompted run's parameters name (a record written before templates had
    names ran the default)."""
    return parameters.get("template") or DEFAULT_TEMPLATE


class Prompted(Method):
    name: ClassVar[str] = PROMPTED
    settings = PromptedRun
    parameters = PromptedParameters
    templated = True
    rerun_options = ("--method", "prompted")
    smoke_made = "prompted"
    smoke_model = "causal LM"
    runs_word = "prompted runs"
    smoke_notice = (
        "This run prompted a tiny randomly initialised causal LM, which has learned no "
        "language, on data generated in the official formats. Its scores show that the "
        "prompted chain (prompts, answers, parsing, official scoring) works end to end; "
        "they say nothing about KLUE or about any language model."
    )

    def matrix(self, profile: str, configs: Path) -> Path | None:
        """The profile's prompted sweep (sweeps/prompted-<profile>.yaml)."""
        shipped = configs / "sweeps" / f"prompted-{profile}.yaml"
        if not shipped.is_file():
            raise KluebookError(f"the profile {profile!r} has no prompted matrix ({shipped.name})")
        return shipped

    def run_fields(self, server: ServedBy | None = None) -> dict[str, Any]:
        """The server that answers its runs; None: the model runs here."""
        return {"server": server}

    def recorded_fields(self, parameters: dict) -> dict[str, Any]:
        """A server by no address (the record holds `provenance.SERVER` in its place) and the
        identity it reported; how it was asked is no part of the record's run."""
        if not parameters.get("base_url"):
            return {"server": None}
        served = parameters.get("served_model", "")
        return {"server": ServedBy(base_url=parameters["base_url"], served_model=served)}

    def check_parameters(self, task, extra: dict, models, profile: str) -> None:
        from kluebook.prompting.checks import check_prompted_parameters  # lazy: the CLI's start

        check_prompted_parameters(task, extra)

    def check_local_models(self, models: set[str]) -> None:
        from kluebook.prompting.checks import check_prompted_models

        check_prompted_models(models)

    def code_parts(self, task) -> list[str]:
        """Every one of the task's templates (a run's own is also an input of its own)."""
        return [template_digest(task, name) for name in template_names(task.folder)]

    def template_input(self, task, parameters: dict) -> str:
        return template_digest(task, template_of(parameters))

    def template_today(self, task, template: str) -> str:
        """ "" for a template that is gone (a run made with it is stale)."""
        return template_digest(task, template) if template in template_names(task.folder) else ""

    def template_of(self, parameters: dict) -> str:
        return template_of(parameters)

    def shots(self, record: RecordView) -> int | None:
        prompted = record.outcome.prompted if record.outcome else None
        return prompted.shots if prompted else record.parameters.get("shots")

    def label(self, shots: int | None) -> str:
        """`prompted`, or `prompted, 5 shots`."""
        return PROMPTED if shots is None else f"{PROMPTED}, {shots} shot{'' if shots == 1 else 's'}"

    def own_part(self, part: str) -> bool:
        return part == PROMPTED or part.startswith("shots=")

    def table_section(self, profile: str, split: str) -> tuple[str, str]:
        if profile == "smoke":
            what = "a tiny randomly initialised causal LM prompted on generated data, not a result"
            return f"Prompted pipeline check: {profile} profile, {split}: {what}", (
                f"Prompted smoke, {split}"
            )
        what = (
            "a language model answering prompts, trained on nothing: another protocol, never "
            "ranked against the fine-tuned rows"
        )
        return f"Prompted: {profile} profile, {split}: {what}", f"Prompted, {profile}, {split}"
