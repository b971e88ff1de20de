"""What a method of making predictions is to the rest of kluebook (`Method`): its runs
(`RunSettings`, one typed model per method over the fields every run shares: a run's identity,
its files and its notebook parameters), the notebook a run of a task executes, what its code
fingerprint reads beside that notebook's import closure, how a record of its runs is read back,
the words its configurations and pages are named by, and where its rows stand in the KLUE
table.

A run names its method by `Method.name`, as its record has always done ("fine-tuned" records
leave it out); `kluebook.methods.registry` finds a method by that name."""

from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Protocol, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kluebook.common.errors import KluebookError
from kluebook.common.paths import CACHE, FILE_NAME_CHARACTERS, RESULTS, ROOT, RUNS, file_name
from kluebook.data.loading import data_checksum
from kluebook.methods.overrides import (
    OverrideField,
    Overrides,
    overrides_model,
    typed_field,
    typed_overrides,
    whole_number_field,
)
from kluebook.prompting.server_options import DEFAULT_OPTIONS, ServerOptions
from kluebook.task_types.task import Task
from kluebook.training import checkpoints

# A notebook parameter the runner sets from the run's own options (`--models`, `--seeds`,
# `--base-url`...): a run's `--set` may not name it.
RUNNER = {"set_by": "runner"}
# One the runner sets that is no part of the run's `parameters` input (`Inputs`): how a server
# is asked changes no answer, and the model it serves is an input of its own.
UNCOUNTED = {"set_by": "runner", "counted": False}


# How a name from outside (a model, a served model, a `--set` value) names a run's files and
# page (`RunSettings.config`, `stem`): the help of the options that take one.
NAMES_IN_FILES = (
    "Any name is accepted and shown as the text it is on every page; in a run's file names and "
    f"page address it keeps only {FILE_NAME_CHARACTERS} (a local folder: its name and a hash of "
    "its files), a name with any other character (a space, markup, a letter outside ASCII) "
    "becoming those characters and a hash of the whole name."
)


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

    base_url: str = Field(
        description="the address of an OpenAI-compatible server (vLLM, TGI, llama.cpp, Ollama, "
        "`transformers serve`), e.g. http://localhost:8000/v1, that answers for --models (the "
        "names the server knows them by); its API key is read from KLUEBOOK_OPENAI_API_KEY or "
        "OPENAI_API_KEY, never from an option or the address. The runs are named `server` (the "
        "address is in no record or name: moving the server stales nothing; another model "
        "served under the same name stales them, as the server's /v1/models reports it), and "
        "every answer is cached, so an interrupted or stale run asks only what it has not asked."
    )
    served_model: str = ""  # filled in by the plan's `ask_servers`, once per model
    # The notebook's `server_options` (`model_dump(by_alias=True)`: its notebook parameters).
    options: ServerOptions = Field(DEFAULT_OPTIONS, serialization_alias="server_options")


class RunSettings(BaseModel):
    """One run, typed: the fields every run has (task, model, seed, profile, data, overrides,
    revisions), and in each method's subclass the settings its runs have because of it (none
    for a fine-tuned run, a prompted run's server). Built once, from the command line or a
    matrix (`kluebook.running.run_plan`) or a record (`kluebook.running.run_spec.spec_of`),
    and handed down whole: its identity (`config`, `stem`, `name`) names its files, and its
    `parameters()` are what its notebook is given, the one place it becomes papermill's.

    A run is identified by task, profile, model, seed and everything else that can change its
    numbers: its overrides and, where they differ from the profile's, its data source and data.
    Those are spelled out in `config`, which is part of its file names, so runs of different
    configurations never overwrite each other."""

    model_config = ConfigDict(frozen=True, extra="forbid", protected_namespaces=())

    method_name: ClassVar[str]  # the method whose runs have these settings
    # That method's class, which types the runs' overrides (set by `Method.__init_subclass__`).
    typed_by: ClassVar[type["Method"] | None] = None

    task: Task
    model: str = Field(description="A hub model id or a local folder. " + NAMES_IN_FILES)
    seed: int = Field(description="The seed of the run's random draws.")
    profile: str = Field(
        "smoke",
        description="smoke: offline pipeline check (default); paper: official recipe, real data.",
    )
    data_source: str = Field(description="generated | official | hub.")
    data_dir: str = Field(
        "", description="Folder laid out like KLUE's klue_benchmark/, for --data-source official."
    )
    # The run's `--set` and matrix overrides, by notebook parameter or recipe field: typed by
    # its method's overrides model of its task (`Method.overrides`) where they enter, the
    # plan's `check_parameters` (and again, the same values, when a run is built from them).
    extra: dict[str, Any] = Field(
        {},
        description="Notebook parameter or recipe switch name=value, e.g. learning_rate=3e-5 or "
        "eval_schedule=trainer (the switches are on the book's deviations page). The settings "
        "name the run's configuration: " + NAMES_IN_FILES,
    )
    default_data: tuple[str, str] = ("", "")  # the profile's data source and folder
    # Hub revisions: as asked (a commit, tag or branch; "" for the current one), then resolved
    # to commits by `run_plan.pin_revisions`; only hub models and hub data have them.
    model_revision: str = Field(
        "",
        description="Hub commit, tag or branch of the models (default: the current commit). "
        "Resolved to a commit before any run; recorded, in the fingerprint and in the rerun "
        "command.",
    )
    data_revision: str = Field(
        "",
        description="Hub commit, tag or branch of the klue/klue dataset for --data-source hub "
        "(default: the current commit); its commit is the run's data checksum.",
    )
    # The configuration as a record names it (`spec_of`: it may name data that are not here).
    recorded_config: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _typed_overrides(cls, data: Any) -> Any:
        """Overrides typed by the run's method's model of its task (not a record's: it keeps
        the values it was run with, whatever the model takes today)."""
        fresh = isinstance(data, dict) and data.get("recorded_config") is None
        if fresh and data.get("extra") and cls.typed_by is not None:
            typed = cls.typed_by().typed_overrides(data["task"], data["extra"])
            data = {**data, "extra": typed}
        return data

    @classmethod
    def notebook_of(cls, task: Task) -> Path:
        """The notebook a run of `task` by this method executes."""
        raise NotImplementedError

    @classmethod
    def shared_names(cls) -> tuple[str, ...]:
        """The fields every run has, as they are given to its notebook (`parameters`)."""
        return tuple(n for n in NotebookParameters.model_fields if n in RunSettings.model_fields)

    @classmethod
    def revision_names(cls) -> tuple[str, ...]:
        """The revision fields, given to a notebook only where one is asked."""
        return tuple(n for n in RunSettings.model_fields if n.endswith("_revision"))

    def but(self, **changes: Any) -> Self:
        """This run with `changes`, validated (its configuration named afresh)."""
        fields = {name: getattr(self, name) for name in type(self).model_fields}
        return type(self).model_validate({**fields, **changes})

    @property
    def method(self) -> str:
        """The name of the run's method."""
        return self.method_name

    @property
    def served_by(self) -> ServedBy | None:
        """The server that answers the run; None for a run whose model runs here."""
        return None

    def method_parameters(self) -> dict[str, Any]:
        """The notebook parameters its method adds to the run's shared ones."""
        return {}

    def config_parts(self) -> list[str]:
        """The words that open the run's configuration name (before its overrides)."""
        return []

    def with_served_model(self, identity: str) -> Self:
        """This run with the identity its server reported for the model (a run with no
        server: as it is)."""
        return self

    @cached_property
    def config(self) -> str:
        """The configuration beyond model and seed, readable; "" for the profile's default.
        It opens with the words of its method's settings (a prompted run's `prompted`, then
        `server` where a server answers), so runs of two methods never share a name."""
        if self.recorded_config is not None:
            return self.recorded_config
        parts = self.config_parts()
        parts += [f"{key}={value}" for key, value in sorted(self.extra.items())]
        if (self.data_source, self.data_dir) != self.default_data:
            parts.append(self.data_source)
            if self.data_source != "hub":
                checksum = data_checksum(self.task, self.data_source, self.data_dir or None)
                parts.append(f"data-{checksum[:8]}")
        return ",".join(parts).replace("/", "_").replace(" ", "_")

    @property
    def stem(self) -> str:
        """The run's file names: its model's (`model_slug`), configuration and seed, each of
        safe characters (`paths.file_name`), today's names unchanged."""
        config = f"-{file_name(self.config)}" if self.config else ""
        return f"{checkpoints.model_slug(self.model)}{config}-seed{self.seed}"

    @property
    def name(self) -> str:
        return f"{self.profile}-{self.stem}"

    @property
    def source_notebook(self) -> Path:
        """The notebook the run executes: its task's, or the prompted one."""
        return self.notebook_of(self.task)

    @property
    def revisions(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in self.revision_names()}

    @property
    def checksum(self) -> str:
        """The data checksum of the run (hub data: the dataset and its commit)."""
        return data_checksum(self.task, self.data_source, self.data_dir or None, self.data_revision)

    def parameters(self) -> dict[str, Any]:
        """The notebook parameters (the notebook boundary: where the run becomes papermill's
        parameters); paths inside the book root are relative to it."""
        return {
            **{name: getattr(self, name) for name in self.shared_names()},
            "output_dir": book_relative(self.output_dir),
            **self.method_parameters(),
            **{name: value for name, value in self.revisions.items() if value},
            **self.extra,
        }

    # A run's files in the book root: named here only.
    @property
    def record_path(self) -> Path:
        """The record of the run's last success."""
        return RESULTS / self.profile / self.task.name / f"{self.stem}.json"

    @property
    def failure_path(self) -> Path:
        """The record of the run's last failure or interruption, if it came after its success."""
        return self.record_path.with_suffix(".failed.json")

    @property
    def executed_path(self) -> Path:
        """The executed notebook of the run's last success, the source of its page."""
        return self.record_path.with_suffix(".ipynb")

    @property
    def predictions_path(self) -> Path:
        """The dev predictions of the run's last success."""
        return self.record_path.with_suffix(".predictions.jsonl")

    @property
    def notebook_path(self) -> Path:
        return RUNS / self.task.name / f"{self.name}.ipynb"

    @property
    def output_dir(self) -> Path:
        return CACHE / "outputs" / self.task.name / self.name

    @property
    def lock_path(self) -> Path:
        return CACHE / "locks" / self.task.name / f"{self.name}.lock"


def book_relative(path: Path) -> str:
    """A path relative to the book root when it lies inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


class RecordView(Protocol):
    """What a method reads of a run record (`kluebook.recording.records.RunRecord`)."""

    parameters: dict[str, Any]
    outcome: Any


# The overrides models made so far, by method and task (`Method.overrides`).
_OVERRIDES: dict[tuple, type[Overrides]] = {}


class Method:
    """One way of making a task's predictions; a subclass per method, registered by name
    (`kluebook.methods.registry.register`)."""

    name: ClassVar[str]
    settings: ClassVar[type[RunSettings]] = RunSettings
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

    def __init_subclass__(cls, **kwargs):
        """A method that names its settings class types its runs' overrides."""
        super().__init_subclass__(**kwargs)
        if "settings" in cls.__dict__:
            cls.settings.typed_by = cls

    # A smoke run of it, in the front page's words: how it was made and of what model.
    smoke_made: ClassVar[str] = ""
    smoke_model: ClassVar[str] = "model"
    runs_word: ClassVar[str] = "runs"  # its runs, as the front page counts them
    smoke_notice: ClassVar[str] = ""  # the text opening a smoke run's page

    def matrix(self, profile: str, configs: Path) -> Path | None:
        """The run matrix `kluebook run --method <name>` chooses for `profile`; None: the
        profile's own (configs/<profile>.yaml)."""
        return None

    def notebook(self, task) -> Path:
        """The notebook a run of `task` by this method executes."""
        return self.settings.notebook_of(task)

    def run_fields(self, server: ServedBy | None = None) -> dict[str, Any]:
        """Its runs' own fields (those of `settings` beyond the shared ones) from a command's
        options (`server`: --base-url's); a one-line error for an option it has not."""
        if server is not None:
            raise KluebookError("--base-url is for prompted runs (--method prompted)")
        return {}

    def recorded_fields(self, parameters: dict) -> dict[str, Any]:
        """Its run's own fields as the run's record holds them (`parameters`)."""
        return {}

    def own_overrides(self, task) -> dict[str, OverrideField]:
        """Overrides its runs of `task` may be given beyond its notebook's parameters."""
        return {}

    def overrides(self, task) -> type[Overrides]:
        """The overrides its runs of `task` may be given, typed (`kluebook.methods.overrides`):
        its notebook's parameters the runner does not set, its own, and `errata`; made once
        per task."""
        key = (self.name, task.name, task.folder, repr(task.switches))
        if key not in _OVERRIDES:
            declared = self.parameters.model_fields
            fields = {
                name: whole_number_field(name)
                if field.annotation is int
                else typed_field(name, field.annotation)
                for name, field in declared.items()
                if name not in self.parameters.runner_names()
            }
            own = self.own_overrides(task)
            fields |= {name: field for name, field in own.items() if name not in fields}
            fields["errata"] = typed_field("errata", str)  # an errata manifest's version
            model_name = f"{type(self).__name__}Overrides_{task.name}"
            _OVERRIDES[key] = overrides_model(model_name, fields)
        return _OVERRIDES[key]

    def typed_overrides(self, task, given: dict) -> dict[str, Any]:
        """`given` typed by `overrides(task)`, in the order given; one line for a name or a
        value its runs of `task` cannot take."""
        return typed_overrides(self.overrides(task), task.name, given)

    def check_parameters(self, task, extra: dict, models, profile: str) -> None:
        """A one-line error for typed overrides `extra` its runs of `task` cannot take together
        (a fine-tuned run's recipe, a prompted run's template)."""

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
