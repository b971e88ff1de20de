"""What a method of making predictions is to the rest of kluebook (`Method`): the settings its
runs have (`MethodSettings`), the notebook a run of a task executes, what its code fingerprint
reads beside that notebook's import closure, how a record of its runs is read back, the words
its configurations and pages are named by, and where its rows stand in the KLUE table.

A run names its method by `Method.name`, as its record has always done ("fine-tuned" records
leave it out); `kluebook.methods.registry` finds a method by that name."""

from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from kluebook.common.errors import KluebookError
from kluebook.prompting.server_options import DEFAULT_OPTIONS, ServerOptions

# A notebook parameter the runner sets from the run's own options (`--models`, `--seeds`,
# `--base-url`...): a run's `--set` may not name it.
RUNNER = {"set_by": "runner"}
# One the runner sets that is no part of the run's `parameters` input (`Inputs`): how a server
# is asked changes no answer, and the model it serves is an input of its own.
UNCOUNTED = {"set_by": "runner", "counted": False}


class NotebookParameters(BaseModel):
    """The parameters cell of a method's notebook, as a model: every name it declares, its type
    and its default (a test reads each notebook's cell against its method's model). The
    fields every method's notebook declares are here; each method's model adds its own."""

    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    model: str = Field(json_schema_extra=RUNNER)  # each method's model gives its default
    profile: str = Field("smoke", json_schema_extra=RUNNER)
    data_source: str = Field("generated", json_schema_extra=RUNNER)
    data_dir: str = Field("", json_schema_extra=RUNNER)
    seed: int = Field(42, json_schema_extra=RUNNER)
    train_limit: int = 0  # train items, 0 for all
    dev_limit: int = 0  # dev items, 0 for all
    # Where the notebook leaves its outcome ("{task}": the task's name); the runner's scratch.
    output_dir: str = Field("outputs/{task}", json_schema_extra=RUNNER)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(cls.model_fields)

    @classmethod
    def runner_names(cls) -> tuple[str, ...]:
        """The parameters the runner sets (`RUNNER`)."""
        return tuple(
            n for n, f in cls.model_fields.items() if f.json_schema_extra in (RUNNER, UNCOUNTED)
        )

    @classmethod
    def uncounted_names(cls) -> tuple[str, ...]:
        """The parameters that are no part of a run's `parameters` input (`UNCOUNTED`)."""
        return tuple(n for n, f in cls.model_fields.items() if f.json_schema_extra == UNCOUNTED)


class ServedBy(BaseModel):
    """The server that answers a run's requests: its address (never in a record or a name), the
    identity it reported for the model (an input of the run), and how it is asked."""

    model_config = ConfigDict(frozen=True)

    base_url: str
    served_model: str = ""  # filled in by the plan's `ask_servers`, once per model
    options: ServerOptions = DEFAULT_OPTIONS


class MethodSettings(BaseModel):
    """The settings a run has because of its method, beside those every run has (task, model,
    seed, profile, data): none for a fine-tuned run; each method's model adds its own."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method_name: ClassVar[str]  # the method whose runs have these settings

    @property
    def served_by(self) -> ServedBy | None:
        """The server that answers the run; None for a run whose model runs here."""
        return None

    def notebook_parameters(self, task_name: str) -> dict[str, Any]:
        """The notebook parameters these settings add to the run's shared ones."""
        return {}

    def config_parts(self) -> list[str]:
        """The words that open the run's configuration name (before its overrides)."""
        return []

    def with_served_model(self, identity: str) -> "MethodSettings":
        """These settings with the identity their server reported for the model (settings
        with no server: as they are)."""
        return self


class RecordView(Protocol):
    """What a method reads of a run record (`kluebook.recording.records.RunRecord`)."""

    parameters: dict[str, Any]
    outcome: Any


class Method:
    """One way of making a task's predictions; a subclass per method, registered by name
    (`kluebook.methods.registry.register`)."""

    name: ClassVar[str]
    settings: ClassVar[type[MethodSettings]] = MethodSettings
    # The parameters cell of the notebook its runs execute.
    parameters: ClassVar[type[NotebookParameters]] = NotebookParameters
    # Written as the record's `method` field (the fine-tuned method's records leave it out).
    named_in_record: ClassVar[bool] = True
    # Whether its rows compete for the KLUE table's best marks (one protocol: fine-tuning).
    ranked: ClassVar[bool] = False
    # Whether its runs are asked with a task's prompt templates (`template=`).
    templated: ClassVar[bool] = False
    # `kluebook run` options that choose it again (the rerun command on a run's page).
    rerun_options: ClassVar[tuple[str, ...]] = ()
    # A smoke run of it, in the front page's words: how it was made and of what model.
    smoke_made: ClassVar[str] = ""
    smoke_model: ClassVar[str] = "model"
    runs_word: ClassVar[str] = "runs"  # its runs, as the front page counts them
    smoke_notice: ClassVar[str] = ""  # the text opening a smoke run's page

    def notebook(self, task) -> Path:
        """The notebook a run of `task` by this method executes."""
        raise NotImplementedError

    def matrix(self, profile: str, configs: Path) -> Path | None:
        """The run matrix `kluebook run --method <name>` chooses for `profile`; None: the
        profile's own (configs/<profile>.yaml)."""
        return None

    def run_settings(
        self, base_url: str = "", options: ServerOptions = DEFAULT_OPTIONS
    ) -> MethodSettings:
        """Its runs' settings from a command's options (a one-line error for one it has not)."""
        if base_url:
            raise KluebookError("--base-url is for prompted runs (--method prompted)")
        return self.settings()

    def recorded_settings(self, parameters: dict) -> MethodSettings:
        """Its run's settings as the run's record holds them (`parameters`)."""
        return self.settings()

    def settable(self, task) -> tuple[str, ...]:
        """Parameters its runs may be given beyond those their notebook declares."""
        return ()

    def check_parameters(self, task, extra: dict, models, profile: str) -> None:
        """A one-line error for overrides `extra` its runs of `task` cannot take."""

    def check_local_models(self, models: set[str]) -> None:
        """A one-line error for a model run here that its runs cannot use."""

    def code_parts(self, task) -> list[str]:
        """Digests its runs' code hash adds to the notebook's and task's code."""
        return []

    def template_input(self, task, parameters: dict) -> str | None:
        """The digest of the prompt template a run with `parameters` is asked with (an input of
        the run); None for a method that asks no template."""
        return None

    def template_today(self, task, template: str) -> str | None:
        """That input as it is today, for the template named `template`."""
        return None

    def template_of(self, parameters: dict) -> str:
        """The template a run's parameters name; "" for a method that asks no template."""
        return ""

    def shots(self, record: RecordView) -> int | None:
        """The demonstrations a run showed before every query; None for a method with none."""
        return None

    def label(self, shots: int | None) -> str:
        """How pages name the method before a configuration's other settings; "" for none."""
        return ""

    def own_part(self, part: str) -> bool:
        """Whether a part of a configuration name is the method's own (`label` says it)."""
        return False

    def table_section(self, profile: str, split: str) -> tuple[str, str]:
        """The title and block name of the KLUE table's section of its rows (an unranked
        method's rows are shown beside the ranked ones, never in their ranking)."""
        return f"{self.name.capitalize()}: {profile} profile, {split}", f"{self.name}, {split}"
